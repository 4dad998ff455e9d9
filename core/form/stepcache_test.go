package form

import (
	"reflect"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// TestStepCacheSameVerdicts checks that the cached first step gives every
// form the verdict the classifier gives it without the cache, on the
// first sight of a form and on the next ones.
func TestStepCacheSameVerdicts(t *testing.T) {
	forms := fixture(t).Forms
	if len(forms) == 0 {
		t.Fatal("fixture has no forms")
	}
	cold, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cold.noSteps = true
	warm, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for pass := 0; pass < 2; pass++ {
		for i := range forms {
			for _, host := range []string{"", "example.org"} {
				want := cold.Classify(&forms[i], host)
				got := warm.Classify(&forms[i], host)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("pass %d form %d host %q: cached %+v, want %+v", pass, i, host, got, want)
				}
			}
		}
	}
	if n := len(warm.steps.Load().m); n == 0 || n > len(forms) {
		t.Errorf("cache holds %d steps for %d forms", n, len(forms))
	}
}

// TestStepCacheKey checks that a change to any part of a form but its
// index and context changes the cache key, so that a form never takes
// another's verdict; it walks the fields by reflection, so a field added to
// page.Form, page.Field or page.Option must be added to the key.
func TestStepCacheKey(t *testing.T) {
	base := page.Form{
		Index: 1, ID: "i", Name: "n", Class: "c", Action: "http://a.test/s", Method: "GET",
		Enctype: "application/x-www-form-urlencoded", Submits: []string{"Go"}, Text: "find", Context: "before", LinkText: "adv",
		Fields: []page.Field{{Tag: "select", Type: "select-one", Name: "q", ID: "qi", Label: "l", Placeholder: "p", Value: "v",
			Options: []page.Option{{Value: "1", Text: "one", Selected: true}}, Checked: true, Required: true, Disabled: true, Size: 3, MaxLength: 9}},
	}
	c := newStepCache()
	k0 := c.key(&base)
	ignored := map[string]bool{"Index": true, "Context": true}
	// walk calls set once per leaf of the form (Fields and Options through
	// their first element) with a function that changes that leaf
	var walk func(v reflect.Value, name string, set func(func(reflect.Value)))
	walk = func(v reflect.Value, name string, set func(func(reflect.Value))) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				fn := v.Type().Field(i).Name
				if v.Type() == reflect.TypeOf(page.Form{}) && ignored[fn] {
					continue
				}
				i := i
				walk(v.Field(i), name+"."+fn, func(m func(reflect.Value)) { set(func(x reflect.Value) { m(x.Field(i)) }) })
			}
		case reflect.Slice:
			if v.Len() == 0 {
				t.Fatalf("%s: empty in the test form", name)
			}
			if v.Type().Elem().Kind() == reflect.String {
				set(func(x reflect.Value) { x.Index(0).SetString(x.Index(0).String() + "x") })
				return
			}
			walk(v.Index(0), name+"[0]", func(m func(reflect.Value)) { set(func(x reflect.Value) { m(x.Index(0)) }) })
		default:
			set(func(x reflect.Value) {
				switch x.Kind() {
				case reflect.String:
					x.SetString(x.String() + "x")
				case reflect.Bool:
					x.SetBool(!x.Bool())
				case reflect.Int:
					x.SetInt(x.Int() + 1)
				default:
					t.Fatalf("%s: kind %s not handled", name, x.Kind())
				}
			})
		}
	}
	n := 0
	walk(reflect.ValueOf(base), "Form", func(m func(reflect.Value)) {
		f := deepCopyForm(base)
		m(reflect.ValueOf(&f).Elem())
		n++
		if c.key(&f) == k0 {
			t.Errorf("change %d: key unchanged", n)
		}
	})
	if n < 20 {
		t.Errorf("only %d parts of a form tried", n)
	}
	for _, f := range []func(*page.Form){
		func(f *page.Form) { f.Index++ },
		func(f *page.Form) { f.Context += " more" },
	} {
		g := deepCopyForm(base)
		f(&g)
		if c.key(&g) != k0 {
			t.Error("index or context changed the key: the step does not read them")
		}
	}
	// the same strings split differently are different forms
	a, b := deepCopyForm(base), deepCopyForm(base)
	a.ID, a.Name = "ab", "c"
	b.ID, b.Name = "a", "bc"
	if c.key(&a) == c.key(&b) {
		t.Error("moving a byte from one attribute to the next kept the key")
	}
}

func deepCopyForm(f page.Form) page.Form {
	f.Submits = append([]string(nil), f.Submits...)
	fields := make([]page.Field, len(f.Fields))
	for i, fd := range f.Fields {
		fd.Options = append([]page.Option(nil), fd.Options...)
		fields[i] = fd
	}
	f.Fields = fields
	return f
}

// BenchmarkStepCacheKey measures keying every form of the fixture page,
// as the cache does for every form of every page.
func BenchmarkStepCacheKey(b *testing.B) {
	forms := fixture(b).Forms
	c := newStepCache()
	b.ReportAllocs()
	for b.Loop() {
		for i := range forms {
			c.key(&forms[i])
		}
	}
}
