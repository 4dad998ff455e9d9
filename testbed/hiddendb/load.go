package hiddendb

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// LoadJSONL reads one JSON object per line. String, number and boolean
// values become fields (arrays of scalars are joined with spaces; nested
// objects are skipped). The record id is the idField value, or the line
// number when idField is empty or missing on a line.
func LoadJSONL(path, idField string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hiddendb: %w", err)
	}
	defer f.Close()
	return ReadJSONL(f, path, idField)
}

// ReadJSONL is LoadJSONL over a reader; name is used in error messages.
func ReadJSONL(r io.Reader, name, idField string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Record
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		rec, err := decodeObject(b)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rec.ID = rec.Fields[idField]
		if idField == "" || rec.ID == "" {
			rec.ID = strconv.Itoa(line)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

// decodeObject decodes a flat JSON object keeping its key order.
func decodeObject(b []byte) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	rec := Record{Fields: map[string]string{}}
	tok, err := dec.Token()
	if err != nil {
		return rec, fmt.Errorf("invalid JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return rec, errors.New("expected a JSON object")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return rec, fmt.Errorf("invalid JSON: %w", err)
		}
		key := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return rec, fmt.Errorf("invalid JSON at key %q: %w", key, err)
		}
		if v, ok := scalarText(raw); ok {
			if _, dup := rec.Fields[key]; !dup {
				rec.Order = append(rec.Order, key)
			}
			rec.Fields[key] = v
		}
	}
	return rec, nil
}

func scalarText(raw json.RawMessage) (string, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		var parts []string
		for _, e := range x {
			switch y := e.(type) {
			case string:
				parts = append(parts, y)
			case json.Number:
				parts = append(parts, y.String())
			}
		}
		return strings.Join(parts, " "), len(parts) > 0
	}
	return "", false
}

// LoadCSV reads a CSV file with a header row (a UTF-8 byte-order mark is
// ignored). The record id is the idColumn value, or "row-N" when idColumn is
// empty or the cell is blank.
func LoadCSV(path, idColumn string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hiddendb: %w", err)
	}
	defer f.Close()
	return ReadCSV(f, path, idColumn)
}

// ReadCSV is LoadCSV over a reader; name is used in error messages.
func ReadCSV(r io.Reader, name, idColumn string) ([]Record, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: reading header: %w", name, err)
	}
	idCol := -1
	for i, h := range header {
		header[i] = strings.TrimSpace(h)
		if header[i] == idColumn && idColumn != "" {
			idCol = i
		}
	}
	if idColumn != "" && idCol < 0 {
		return nil, fmt.Errorf("%s:1: no column %q in header %v", name, idColumn, header)
	}
	var out []Record
	for row := 1; ; row++ {
		cells, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(cells) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d fields, header has %d", name, line, len(cells), len(header))
		}
		rec := Record{Fields: make(map[string]string, len(header)), Order: header}
		for i, c := range cells {
			rec.Fields[header[i]] = c
		}
		if idCol >= 0 {
			rec.ID = cells[idCol]
		}
		if rec.ID == "" {
			rec.ID = "row-" + strconv.Itoa(row)
		}
		out = append(out, rec)
	}
	return out, nil
}

// Load reads a .jsonl/.json-lines or .csv file by its extension.
func Load(path, idField string) ([]Record, error) {
	switch {
	case strings.HasSuffix(path, ".csv"):
		return LoadCSV(path, idField)
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".ndjson"), strings.HasSuffix(path, ".json"):
		return LoadJSONL(path, idField)
	}
	return nil, fmt.Errorf("hiddendb: %s: unknown format (want .csv or .jsonl)", path)
}
