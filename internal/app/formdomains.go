package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dwcrawl/dwcrawl/core/form"
)

// calibrateLevels calibrates m's level thresholds on the labelled domains
// of ex when a label file is given, and reports it on w.
func calibrateLevels(m *form.Model, ex []form.Example, labelFile string, w io.Writer) error {
	if labelFile == "" || m.DSFC == nil {
		return nil
	}
	labels, err := form.LoadDomainLabels(labelFile)
	if err != nil {
		return err
	}
	out, in := m.DSFC.CalibrateLevels(ex, labels, form.DefaultMaxOut)
	fmt.Fprintf(w, "domain level thresholds calibrated on %s: %s (out-of-domain marked relevant %s, in-domain recall %s)\n",
		labelFile, m.DSFC.Levels, out, in)
	m.Meta["domain_labels"] = labelFile
	return nil
}

// EvalDomainsOptions are the options of `dwcrawl eval domains`.
type EvalDomainsOptions struct {
	Data   string // Formasaurus-layout folder ("" = shared data)
	Labels string // hand-labelled domains of its search forms
	Model  string // model file ("" = embedded default)
	CV     int    // > 1: cross-validate the level calibration
	MaxOut float64
	JSON   bool
	Seed   uint64
}

// EvalDomains scores the domain step on hand-labelled search forms
// (`dwcrawl eval domains`): how many out-of-domain forms are marked
// relevant, how many in-domain forms are found, with no target and with
// each domain as the target.
func EvalDomains(ctx context.Context, opt EvalDomainsOptions, w io.Writer) error {
	if opt.Labels == "" {
		return &OptionError{Option: "labels", Err: errors.New("is required: the file of hand-labelled domains")}
	}
	dir, err := dataDir(opt.Data)
	if err != nil {
		return fmt.Errorf("eval domains: %w", err)
	}
	ex, _, err := form.LoadFormasaurus(ctx, dir)
	if err != nil {
		return fmt.Errorf("eval domains: %w", err)
	}
	labels, err := form.LoadDomainLabels(opt.Labels)
	if err != nil {
		return fmt.Errorf("eval domains: %w", err)
	}
	m, _, err := loadOrDefault(opt.Model)
	if err != nil {
		return fmt.Errorf("eval domains: %w", err)
	}
	if m.DSFC == nil {
		return errors.New("eval domains: the model has no domain classifier")
	}
	var r *form.DomainReport
	if opt.CV > 1 {
		if opt.MaxOut <= 0 {
			opt.MaxOut = form.DefaultMaxOut
		}
		r, err = form.DomainCrossValidate(m, ex, labels, opt.CV, opt.MaxOut, opt.Seed)
	} else {
		r, err = form.EvaluateDomains(m, ex, labels)
	}
	if err != nil {
		return fmt.Errorf("eval domains: %w", err)
	}
	if opt.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	_, err = io.WriteString(w, r.Text())
	return err
}
