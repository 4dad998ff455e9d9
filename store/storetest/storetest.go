// Package storetest helps test the encoders of stored records: it fills
// every exported field of a record by reflection, so that a field added to
// a record type and dropped by its encoder fails a round-trip test without
// the test naming its fields.
package storetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"
)

// Fill sets every exported field of the struct p points to, recursively, to
// a non-zero value drawn from rng: strings mix ASCII, characters JSON
// escapes and multi-byte UTF-8; slices and maps get one to three elements;
// times are whole nanoseconds in UTC. Fields tagged `json:"-"` stay zero
// (they are not stored). It returns an error naming a field whose kind it
// cannot fill.
func Fill(p any, rng *rand.Rand) error {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("storetest: Fill wants a pointer to a struct, got %T", p)
	}
	return fill(v.Elem(), v.Elem().Type().Name(), rng)
}

var timeType = reflect.TypeFor[time.Time]()

// pieces are joined into strings: plain words, JSON escapes, HTML
// characters (which encoding/json escapes) and multi-byte characters.
var pieces = []string{"a", "word", " ", "\"", "\\", "\n", "\t", "\x01", "<b>", "&", "é", "日本", "\u2028", "💡", "/"}

func fill(v reflect.Value, name string, rng *rand.Rand) error {
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Unix(1+rng.Int64N(1<<33), rng.Int64N(1e9)).UTC()))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		var b strings.Builder
		for n := 1 + rng.IntN(6); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		v.SetString(b.String())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := int64(1 + rng.IntN(100))
		if rng.IntN(2) == 0 {
			n = -n
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + rng.IntN(200)))
	case reflect.Float32, reflect.Float64:
		// Fractions, small and large magnitudes (JSON's exponent forms).
		v.SetFloat((0.5 + rng.Float64()) * []float64{1, 1e-9, 3e21, -7}[rng.IntN(4)])
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1+rng.IntN(3), 3)
		for i := range s.Len() {
			if err := fill(s.Index(i), fmt.Sprintf("%s[%d]", name, i), rng); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 1 + rng.IntN(3); i > 0; i-- {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			if err := fill(k, name+" key", rng); err != nil {
				return err
			}
			if err := fill(e, name+" value", rng); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		e := reflect.New(v.Type().Elem())
		if err := fill(e.Elem(), name, rng); err != nil {
			return err
		}
		v.Set(e)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			if err := fill(v.Field(i), name+"."+f.Name, rng); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("storetest: %s: cannot fill a %s", name, v.Kind())
	}
	return nil
}

// Zero returns the exported fields of the struct p points to that hold
// their zero value, by name (nested struct fields as "Outer.Inner"), so a
// test can check that Fill, and the decoder, reached every one.
func Zero(p any) []string {
	var zero []string
	var walk func(v reflect.Value, name string)
	walk = func(v reflect.Value, name string) {
		if v.Kind() == reflect.Struct && v.Type() != timeType {
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
					walk(v.Field(i), strings.TrimPrefix(name+"."+f.Name, "."))
				}
			}
			return
		}
		if v.IsZero() {
			zero = append(zero, name)
		}
	}
	walk(reflect.ValueOf(p).Elem(), "")
	return zero
}

// RoundTrip fills n records of type T from a generator seeded with seed,
// passes each through store (encode, store, read back, decode) and returns
// an error describing the first record that does not come back equal, or
// that comes back with an exported field at its zero value.
func RoundTrip[T any](seed uint64, n int, store func(T) (T, error)) error {
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		var want T
		if err := Fill(&want, rng); err != nil {
			return err
		}
		got, err := store(want)
		if err != nil {
			return fmt.Errorf("seed %d record %d: %w", seed, i, err)
		}
		if z := Zero(&got); len(z) > 0 {
			return fmt.Errorf("seed %d record %d: fields %v lost", seed, i, z)
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("seed %d record %d: read back\n%s\nwant\n%s", seed, i, dump(got), dump(want))
		}
	}
	return nil
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
