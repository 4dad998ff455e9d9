package script

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// varSpec is a declaration with a string shorthand: "help" or {help=, env=}.
type varSpec struct {
	Help string `lua:"help"`
	Env  string `lua:"env"`
}

func (v *varSpec) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty help text")
	}
	v.Help = string(b)
	return nil
}

type plugDecl struct {
	Name   string             `lua:"name"`
	Env    []string           `lua:"env"`
	Vars   map[string]varSpec `lua:"vars"`
	Search Func               `lua:"search"`
	Check  Func               `lua:"check"`
}

type reply struct {
	Error   string   `lua:"error"`
	Records *[]rec   `lua:"records"`
	Total   *float64 `lua:"total"`
}

type rec struct {
	ID     string            `lua:"id,text"`
	URL    string            `lua:"url,omitempty"`
	Fields map[string]string `lua:"fields,text"`
}

const plugSrc = `local calls = 0
return dw.plugin{
  name = "p",
  env = { "P_KEY" },
  vars = { base = { help = "base URL", env = "P_BASE" }, note = "free text" },
  search = function(q, page, vars)
    calls = calls + 1
    if q == "env" then return { records = { { id = dw.env("P_KEY") or "none" } } } end
    if q == "secret" then return { records = { { id = dw.env("OTHER_SECRET") } } } end
    if q == "bad" then return { records = { { id = 1, fields = { a = {} } } } } end
    if q == "arg" then return { records = { { id = page, url = vars.url, fields = { n = tostring(vars.fields and vars.fields.k) } } } } end
    return { records = { { id = q .. page, fields = { year = 2015, open = true } } }, total = calls }
  end,
}
`

func TestInstance(t *testing.T) {
	env := map[string]string{"P_KEY": "k1", "OTHER_SECRET": "s3cr3t"}
	p := NewPool(Options{Env: func(n string) (string, bool) { v, ok := env[n]; return v, ok }})
	defer p.Close()
	c, err := Compile("p.lua", []byte(plugSrc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in, err := p.Load(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Type() != "table" || in.Get("name") != "p" {
		t.Fatalf("type %s, name %v", in.Type(), in.Get("name"))
	}
	var d plugDecl
	if err := in.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if want := map[string]varSpec{"base": {Help: "base URL", Env: "P_BASE"}, "note": {Help: "free text"}}; !reflect.DeepEqual(d.Vars, want) {
		t.Errorf("vars = %+v, want %+v", d.Vars, want)
	}
	if !d.Search.Defined() || d.Check.Defined() {
		t.Errorf("search defined %v, check defined %v", d.Search.Defined(), d.Check.Defined())
	}
	if file, line := d.Search.Pos(); file != "p.lua" || line != 6 {
		t.Errorf("search defined at %s:%d, want p.lua:6", file, line)
	}

	call := func(args ...any) (reply, error) {
		v, err := in.Call(ctx, d.Search, args...)
		if err != nil {
			return reply{}, err
		}
		var r reply
		return r, v.Decode(&r)
	}
	r, err := call("cars", 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []rec{{ID: "cars2", Fields: map[string]string{"year": "2015", "open": "true"}}}; r.Records == nil || !reflect.DeepEqual(*r.Records, want) || *r.Total != 1 {
		t.Errorf("reply %+v", r)
	}
	// Arguments cross as data: a struct with its tags, omitempty honoured.
	r, err = call("arg", 3, rec{ID: "x", Fields: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := (*r.Records)[0]; got.ID != "3" || got.URL != "" || got.Fields["n"] != "v" {
		t.Errorf("arg record %+v", got)
	}
	// A result that breaks the shape: positioned at the function, keyed
	// inside the value.
	_, err = call("bad", 1)
	var se *Error
	if !errors.As(err, &se) || se.File != "p.lua" || se.Line != 6 || err.Error() != "p.lua:6: records[1].fields.a: expected a string, number or boolean, got table" {
		t.Errorf("bad result: %v", err)
	}

	// dw.env: nothing before a grant, the granted names after, never others.
	if _, err := call("env", 1); err == nil || !strings.Contains(err.Error(), "p.lua:8: dw.env(\"P_KEY\"): no environment variables are readable here") {
		t.Errorf("env before grant: %v", err)
	}
	in.GrantEnv(d.Env, fmt.Sprintf("p.lua:%d", c.KeyLine("env")))
	if r, err := call("env", 1); err != nil || (*r.Records)[0].ID != "k1" {
		t.Errorf("granted env: %+v, %v", r, err)
	}
	_, err = call("secret", 1)
	if err == nil || err.Error() != `p.lua:9: dw.env("OTHER_SECRET"): OTHER_SECRET is not in the env list of the plugin (p.lua:4, declaring P_KEY); add it there to read it` {
		t.Errorf("undeclared env: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the secret leaked: %v", err)
	}
	in.Close()
	if _, err := in.Call(ctx, d.Search, "x", 1); err == nil {
		t.Error("call after Close succeeded")
	}
	// The grant ends with the instance: the state comes back without it.
	in2, err := p.Load(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Close()
	var d2 plugDecl
	if err := in2.Decode(&d2); err != nil {
		t.Fatal(err)
	}
	if v, err := in2.Call(ctx, d2.Search, "env", 1); err == nil {
		t.Errorf("a reused state kept the grant: %v", v.Go())
	}
}

func TestDecodeShorthandAndText(t *testing.T) {
	bad := []struct {
		name, src, want string
	}{
		{"shorthand error", "return {\n  vars = { x = '' },\n}\n", "bad.lua:2: vars.x: empty help text"},
		{"shorthand wrong type", "return {\n  vars = { x = 5 },\n}\n", "bad.lua:2: vars.x: expected a string or a table, got number 5"},
		{"func wrong type", "return {\n  search = 'f',\n}\n", `bad.lua:2: search: expected function, got string "f"`},
		{"unknown key", "return {\n  name = 'x',\n  serch = function() end,\n}\n", `bad.lua:3: serch: unknown key (did you mean "search"?)`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, Options{}, "bad.lua", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var d plugDecl
			if err := Decode(v, &d, "bad.lua"); err == nil || err.Error() != tt.want {
				t.Fatalf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
