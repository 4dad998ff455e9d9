package app

import "errors"

// OptionError is a bad value of one option, or a bad combination of
// options when Option is empty. Option is spelt as the command line's flag
// (without dashes), so the CLI can name the flag; it exits with status 2.
type OptionError struct {
	Option string
	Err    error
}

// Error names the option, then the problem.
func (e *OptionError) Error() string {
	if e.Option == "" {
		return e.Err.Error()
	}
	return e.Option + " " + e.Err.Error()
}

// Unwrap returns the problem.
func (e *OptionError) Unwrap() error { return e.Err }

// Errors a caller fixes by giving one more option; the CLI adds the flag.
var (
	// ErrNoK: the keyword interface declares no result limit k.
	ErrNoK = errors.New("the interface does not declare its result limit k")
	// ErrNoTheta: a hidden-database sample without a sampling ratio θ.
	ErrNoTheta = errors.New("unknown sampling ratio θ")
	// ErrEmptySample: sampling through the interface found no record.
	ErrEmptySample = errors.New("the sample is empty")
	// ErrNoData: no labelled-data folder given and no shared data found.
	ErrNoData = errors.New("no data folder given")
	// ErrNoOut: no output file given.
	ErrNoOut = errors.New("no output file given")
	// ErrNoVocabulary: nothing to draw sampling queries from.
	ErrNoVocabulary = errors.New("no vocabulary to draw sampling queries from")
)
