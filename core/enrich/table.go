package enrich

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Table is a CSV table with a header row.
type Table struct {
	// Name is the file name used in error messages.
	Name   string
	Header []string
	Rows   [][]string
	// Lines holds the 1-based line number where each row starts.
	Lines []int
}

// LoadTable reads a UTF-8 CSV file with a header row. A UTF-8 byte-order
// mark is ignored; malformed rows are reported with their line number.
func LoadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("enrich: load table: %w", err)
	}
	defer f.Close()
	return ReadTable(f, path)
}

// ReadTable is LoadTable over a reader; name is used in error messages.
func ReadTable(r io.Reader, name string) (*Table, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: empty file, want a header row", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, csvErr(err))
	}
	t := &Table{Name: name, Header: make([]string, len(header))}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("%s:1: column %d has an empty name", name, i+1)
		}
		if seen[h] {
			return nil, fmt.Errorf("%s:1: duplicate column %q", name, h)
		}
		seen[h] = true
		t.Header[i] = h
	}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, csvErr(err))
		}
		line, _ := cr.FieldPos(0)
		if len(row) != len(t.Header) {
			return nil, fmt.Errorf("%s:%d: row has %d fields, header has %d", name, line, len(row), len(t.Header))
		}
		t.Rows = append(t.Rows, row)
		t.Lines = append(t.Lines, line)
	}
	return t, nil
}

// csvErr rewrites encoding/csv's "record on line N" errors as "line N".
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, column %d: %w", pe.Line, pe.Column, pe.Err)
	}
	return err
}

// Column returns the index of the named column.
func (t *Table) Column(name string) (int, bool) {
	for i, h := range t.Header {
		if h == name {
			return i, true
		}
	}
	return -1, false
}

// Columns resolves column names to indices; an unknown name is an error
// listing the header.
func (t *Table) Columns(names []string) ([]int, error) {
	out := make([]int, 0, len(names))
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i, ok := t.Column(n)
		if !ok {
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", t.Name, n, strings.Join(t.Header, ", "))
		}
		out = append(out, i)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no document columns given", t.Name)
	}
	return out, nil
}

// Docs returns each row's document: the named columns joined by spaces.
func (t *Table) Docs(columns []string) ([]string, error) {
	idx, err := t.Columns(columns)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = joinCells(row, idx)
	}
	return out, nil
}

func joinCells(row []string, idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		if v := strings.TrimSpace(row[i]); v != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v)
		}
	}
	return b.String()
}
