package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/experiment/enrichbench"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

// flagHints turn the flag-neutral errors of the core, app and the
// benchmarks into advice naming the flag that fixes them; the exit status
// stays the one the error carries (errExit), else 1.
var flagHints = []struct {
	err  error
	hint string
}{
	{app.ErrNoK, "give --k"},
	{app.ErrNoTheta, "give --theta"},
	{app.ErrEmptySample, "send more --sample-queries or give --sample"},
	{app.ErrNoData, "give --data"},
	{app.ErrNoOut, "give --out"},
	{app.ErrNeedToken, "give --token or set DWCRAWL_TOKEN"},
	{app.ErrNoVocabulary, "give a vocabulary: --local with --columns, or --words"},
	{enrich.ErrOtherRun, "use another --dir"},
	{enrichbench.ErrNoIDColumn, "set --id-column"},
	{fetch.ErrBlocked, "the address policy refuses loopback, private and reserved addresses; run with --allow-private to reach them"},
}

// hinted is an error with the flag advice added.
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return h.err.Error() + ": " + h.hint }
func (h hinted) Unwrap() error { return h.err }

// withFlagHint adds the flag advice to err, and names the flag of an
// app.OptionError (exit status 2). An exit status err carries is kept, at
// the top of the chain.
func withFlagHint(err error) error {
	if err == nil || errors.As(err, new(hinted)) {
		return err
	}
	code := 0
	var ee errExit
	if errors.As(err, &ee) {
		code = ee.code
	}
	out := err
	var oe *app.OptionError
	if errors.As(err, &oe) {
		code = 2
		if oe.Option != "" && err == error(oe) {
			out = fmt.Errorf("--%s %w", oe.Option, oe.Err)
		}
	}
	for _, h := range flagHints {
		if errors.Is(err, h.err) {
			out = hinted{out, h.hint}
			break
		}
	}
	if out == err {
		return err
	}
	if code != 0 {
		return errExit{code, out}
	}
	return out
}

var hintOnce sync.Once

// addFlagHints makes every command's errors go through withFlagHint.
func addFlagHints(cmds []*cli.Command) {
	for _, c := range cmds {
		if a := c.Action; a != nil {
			c.Action = func(ctx *cli.Context) error { return withFlagHint(a(ctx)) }
		}
		addFlagHints(c.Subcommands)
	}
}
