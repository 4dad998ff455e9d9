package dataset

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Format is an export format.
type Format string

// Export formats.
const (
	JSONL   Format = "jsonl"   // one JSON object (Record) per line
	CSV     Format = "csv"     // a header row, then one row per record
	Parquet Format = "parquet" // one row per record, a column per field
)

// Formats lists the export formats.
var Formats = []Format{JSONL, CSV, Parquet}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want jsonl, csv or parquet)", s)
}

// FieldPrefix starts the CSV column (and is the Parquet group) of each
// record field: field "title" is column "fields.title", as in the JSON
// object, so a field never collides with a provenance column.
const FieldPrefix = "fields."

// Columns are the provenance and content columns of CSV and Parquet, in CSV
// order (Parquet sorts its columns by name); the field columns follow.
var Columns = []string{"record", "source", "interface", "site", "query", "query_n", "url", "time",
	"id", "key", "seq", "signature", "group", "same_as", "text"}

// TimeLayout is RFC 3339 with milliseconds, the precision of the query log.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// rowGroupRows bounds a Parquet row group, so the writer's memory does not
// grow with the dataset.
const rowGroupRows = 10_000

// Write exports the selected records to w in format f and returns how many
// it wrote.
func (d *Dataset) Write(w io.Writer, f Format) (int, error) {
	switch f {
	case JSONL:
		return d.writeJSONL(w)
	case CSV:
		return d.writeCSV(w)
	case Parquet:
		return d.writeParquet(w)
	}
	_, err := ParseFormat(string(f))
	return 0, err
}

func (d *Dataset) writeJSONL(w io.Writer) (int, error) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	n := 0
	err := d.Records(func(r Record) error {
		n++
		return enc.Encode(r)
	})
	return n, err
}

// columns is r's provenance and content, in Columns order.
func (r Record) columns() []string {
	t := ""
	if r.Time != nil {
		t = r.Time.Format(TimeLayout)
	}
	return []string{r.Record, r.Source, r.Interface, r.Site, r.Query, strconv.Itoa(r.QueryN), r.URL, t,
		r.ID, r.Key, strconv.Itoa(r.Seq), r.Signature, r.Group, strings.Join(r.SameAs, " "), r.Text}
}

func (d *Dataset) writeCSV(w io.Writer) (int, error) {
	cw := csv.NewWriter(w)
	head := append([]string(nil), Columns...)
	for _, f := range d.fields {
		head = append(head, FieldPrefix+f)
	}
	if err := cw.Write(head); err != nil {
		return 0, err
	}
	n := 0
	err := d.Records(func(r Record) error {
		row := r.columns()
		for _, f := range d.fields {
			row = append(row, r.Fields[f])
		}
		n++
		return cw.Write(row)
	})
	if err != nil {
		return n, err
	}
	cw.Flush()
	return n, cw.Error()
}

// ParquetSchema is the schema of a Parquet export with the given field
// names: the provenance columns (strings, query_n and seq int64, time an
// optional UTC timestamp in milliseconds, same_as a list of strings) and a
// group "fields" of optional strings, one per field name.
func ParquetSchema(fields []string) *parquet.Schema {
	g := parquet.Group{}
	for _, c := range Columns {
		switch c {
		case "query_n", "seq":
			g[c] = parquet.Int(64)
		case "time":
			g[c] = parquet.Optional(parquet.Timestamp(parquet.Millisecond))
		case "same_as":
			g[c] = parquet.List(parquet.String())
		default:
			g[c] = parquet.String()
		}
	}
	if len(fields) > 0 {
		fg := parquet.Group{}
		for _, f := range fields {
			fg[f] = parquet.Optional(parquet.String())
		}
		g[strings.TrimSuffix(FieldPrefix, ".")] = fg
	}
	return parquet.NewSchema("record", g)
}

func (d *Dataset) writeParquet(w io.Writer) (int, error) {
	pw := parquet.NewGenericWriter[map[string]any](w, ParquetSchema(d.fields),
		parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(rowGroupRows))
	n := 0
	row := make([]map[string]any, 1)
	err := d.Records(func(r Record) error {
		m := map[string]any{}
		for i, v := range r.columns() {
			m[Columns[i]] = v
		}
		m["query_n"], m["seq"], m["same_as"] = int64(r.QueryN), int64(r.Seq), r.SameAs
		if r.Time != nil {
			m["time"] = *r.Time
		} else {
			delete(m, "time")
		}
		if len(d.fields) > 0 {
			fm := make(map[string]any, len(r.Fields))
			for k, v := range r.Fields {
				fm[k] = v
			}
			m[strings.TrimSuffix(FieldPrefix, ".")] = fm
		}
		row[0] = m
		if _, err := pw.Write(row); err != nil {
			return fmt.Errorf("parquet: record %s: %w", r.Record, err)
		}
		n++
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, pw.Close()
}
