package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dwcrawl/dwcrawl/store"
)

// Forms materialises the forms a crawl's coordinator recorded from the
// forms stream: a form published more than once (at-least-once delivery)
// counts once, by its id, with its last record. Order: as published.
func (c *Conn) Forms(ctx context.Context, name string) ([]store.Form, error) {
	if _, ok, err := c.GetSpec(ctx, name); err != nil {
		return nil, err
	} else if !ok {
		return nil, c.noCrawl(ctx, name)
	}
	subj := "dwcrawl.form." + name + ".*"
	var out []store.Form
	err := c.do(ctx, func(ctx context.Context) error {
		out = nil
		at := map[string]int{}
		return c.readSubject(ctx, c.forms, subj, "form", 1024, func(data []byte) error {
			var f store.Form
			if err := json.Unmarshal(data, &f); err != nil {
				return err
			}
			if f.ID == "" {
				return errors.New("no form id")
			}
			if i, dup := at[f.ID]; dup {
				out[i] = f
				return nil
			}
			at[f.ID] = len(out)
			out = append(out, f)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: forms of %s: %w", name, err)
	}
	return out, nil
}
