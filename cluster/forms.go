package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

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
		info, err := c.forms.Info(ctx, jetstream.WithSubjectFilter(subj))
		if err != nil {
			return err
		}
		want := 0
		for _, n := range info.State.Subjects {
			want += int(n)
		}
		if want == 0 {
			return nil
		}
		cons, err := c.js.OrderedConsumer(ctx, StreamForms, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
		if err != nil {
			return err
		}
		at := map[string]int{}
		for got := 0; got < want; {
			batch, err := cons.Fetch(min(1024, want-got), jetstream.FetchMaxWait(2*time.Second))
			if err != nil {
				return err
			}
			n := 0
			for msg := range batch.Messages() {
				n++
				var f store.Form
				if err := json.Unmarshal(msg.Data(), &f); err != nil || f.ID == "" {
					c.log.Warn("bad form message", "subject", msg.Subject(), "err", err)
					continue
				}
				if i, dup := at[f.ID]; dup {
					out[i] = f
					continue
				}
				at[f.ID] = len(out)
				out = append(out, f)
			}
			if err := batch.Error(); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("read %d of the %d form messages", got, want)
			}
			got += n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: forms of %s: %w", name, err)
	}
	return out, nil
}
