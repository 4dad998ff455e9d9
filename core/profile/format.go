package profile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// notes are the comments String prints after some settings.
var notes = map[string]string{
	"reverse.threshold":                "reverse search when fewer unvisited sites remain",
	"reverse.min_links":                "links to known sites that make a centre page",
	"stop.max_depth":                   "SC1",
	"stop.max_pages_per_depth":         "SC2",
	"stop.max_forms_per_depth":         "SC3",
	"stop.max_pages_no_form_per_depth": "SC4",
	"stop.max_pages_no_form":           "SC5",
	"rank.alpha":                       "α·ST + (1−α)·log(1+SF)",
	"learn.sites_every":                "rebuild FSS after N new deep sites",
	"learn.forms_every":                "rebuild FSL after M new forms",
	"budget.pages":                     "0 = unbounded",
	"probe.queries":                    "0 = no probing",
	"harvest.queries":                  "0 = unbounded",
}

// String renders the resolved settings as YAML-like text, one key per line,
// with the Lua key names.
func (p *Profile) String() string {
	var b strings.Builder
	if p.Path != "" {
		fmt.Fprintf(&b, "# profile %s\n", p.Path)
	}
	writeStruct(&b, reflect.ValueOf(*p), "", 0)
	return b.String()
}

// MarshalJSON encodes the profile with its Lua key names and durations as
// strings ("1s"), the same shape as the Lua table.
func (p *Profile) MarshalJSON() ([]byte, error) {
	return json.Marshal(toMap(reflect.ValueOf(*p)))
}

type field struct {
	name string
	v    reflect.Value
}

func fields(v reflect.Value) []field {
	var fs []field
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Tag.Get("lua")
		if name == "" || name == "-" {
			continue
		}
		fs = append(fs, field{name, v.Field(i)})
	}
	return fs
}

func writeStruct(b *strings.Builder, v reflect.Value, prefix string, indent int) {
	pad := strings.Repeat("  ", indent)
	for _, f := range fields(v) {
		path := f.name
		if prefix != "" {
			path = prefix + "." + f.name
		}
		switch f.v.Kind() {
		case reflect.Struct:
			fmt.Fprintf(b, "%s%s:\n", pad, f.name)
			writeStruct(b, f.v, path, indent+1)
		case reflect.Map:
			if f.v.Len() == 0 {
				fmt.Fprintf(b, "%s%s: {}\n", pad, f.name)
				continue
			}
			fmt.Fprintf(b, "%s%s:\n", pad, f.name)
			keys := f.v.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			for _, k := range keys {
				if v := f.v.MapIndex(k); v.Kind() == reflect.Struct {
					fmt.Fprintf(b, "%s  %s:\n", pad, scalar(k))
					writeStruct(b, v, path+"."+k.String(), indent+2)
					continue
				}
				fmt.Fprintf(b, "%s  %s: %s\n", pad, scalar(k), scalar(f.v.MapIndex(k)))
			}
		case reflect.Slice:
			if f.v.Len() == 0 {
				fmt.Fprintf(b, "%s%s: []\n", pad, f.name)
				continue
			}
			fmt.Fprintf(b, "%s%s:\n", pad, f.name)
			for i := 0; i < f.v.Len(); i++ {
				fmt.Fprintf(b, "%s  - %s\n", pad, scalar(f.v.Index(i)))
			}
		default:
			line := fmt.Sprintf("%s%s: %s", pad, f.name, scalar(f.v))
			if n := notes[path]; n != "" {
				line = fmt.Sprintf("%-44s # %s", line, n)
			}
			b.WriteString(line + "\n")
		}
	}
}

// scalar renders a value, quoting strings that YAML would misread.
func scalar(v reflect.Value) string {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if needsQuote(s) {
			if len(s) > 100 {
				s = s[:97] + "..."
			}
			return strconv.Quote(s)
		}
		return s
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

func toMap(v reflect.Value) any {
	if v.Type() == reflect.TypeOf(time.Duration(0)) {
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for _, f := range fields(v) {
			m[f.name] = toMap(f.v)
		}
		return m
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.Struct {
			return v.Interface()
		}
		m := map[string]any{}
		for _, k := range v.MapKeys() {
			m[k.String()] = toMap(v.MapIndex(k))
		}
		return m
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toMap(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

// needsQuote reports whether a string would not read back as itself as a
// plain YAML scalar.
func needsQuote(s string) bool {
	return s == "" || len(s) > 100 || strings.TrimSpace(s) != s ||
		strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") ||
		strings.Contains(s, ": ") || strings.Contains(s, " #") ||
		strings.HasSuffix(s, ":") || strings.ContainsAny(s, "\n\r\t")
}
