package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func TestWithFlagHint(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		err  error
		msg  string
		code int // 0: no errExit
	}{
		{"plain error untouched", boom, "boom", 0},
		{"exit status kept", errExit{130, boom}, "boom", 130},
		{"k", fmt.Errorf("enrich: %w", app.ErrNoK), "enrich: the interface does not declare its result limit k: give --k", 0},
		{"k as a usage error", &app.OptionError{Err: app.ErrNoK}, "the interface does not declare its result limit k: give --k", 2},
		{"named option", &app.OptionError{Option: "form", Err: errors.New("abc: no such form")}, "--form abc: no such form", 2},
		{"other run", fmt.Errorf("enrich: dir: %w (stored x)", enrich.ErrOtherRun), "enrich: dir: the directory holds a different enrichment run (stored x): use another --dir", 0},
		{"sample", errExit{2, fmt.Errorf("enrich: %w (0 records)", app.ErrEmptySample)}, "enrich: the sample is empty (0 records): send more --sample-queries or give --sample", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := withFlagHint(c.err)
			if got.Error() != c.msg {
				t.Errorf("message %q, want %q", got.Error(), c.msg)
			}
			ee, ok := got.(errExit)
			if (c.code != 0) != ok || ee.code != c.code {
				t.Errorf("exit %v %d, want %d", ok, ee.code, c.code)
			}
			if again := withFlagHint(got); again.Error() != got.Error() {
				t.Errorf("hinted twice: %q", again.Error())
			}
			if !errors.Is(got, errors.Unwrap(c.err)) && !errors.Is(got, c.err) {
				t.Errorf("%v no longer wraps %v", got, c.err)
			}
		})
	}
}
