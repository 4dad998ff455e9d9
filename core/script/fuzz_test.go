package script

import (
	"context"
	"testing"
	"time"
)

// FuzzCompileRunDecode checks that no source text makes the parser, the
// line map, the sandbox or the decoder panic.
func FuzzCompileRunDecode(f *testing.F) {
	for _, s := range []string{
		"return { name = 'x', stop = { max_depth = 3 } }",
		"return dw.domain{ seeds = { 'a', 'b' }, headers = { ['X-Y'] = 'z' } }",
		"local p = {}\np.stop = { on = true }\nreturn p",
		"dw.domain{ count = -1 }",
		"return {",
		"error({})",
		"return dw.json.decode('[1,2,{\"a\":null}]')",
		"return setmetatable({}, {__index = function(t, k) return t[k] end}).x",
	} {
		f.Add(s)
	}
	pool := NewPool(Options{CallTimeout: 50 * time.Millisecond})
	f.Cleanup(pool.Close)
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Compile("fuzz.lua", []byte(src))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("compile error %T is not *Error: %v", err, err)
			}
			return
		}
		v, err := pool.Run(context.Background(), c)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("run error %T is not *Error: %v", err, err)
			}
			return
		}
		var cfg config
		_ = c.Decode(v, &cfg)
		_ = ToGo(v)
	})
}
