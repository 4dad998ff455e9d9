package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// subjectCount is the number of messages st holds on the subjects
// matching subj.
func subjectCount(ctx context.Context, st jetstream.Stream, subj string) (int, error) {
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(subj))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range info.State.Subjects {
		n += int(k)
	}
	return n, nil
}

// readSubject calls each with the data of every message st holds on the
// subjects matching subj, in the order they were stored, fetching up to
// batch at a time through an ordered consumer. A message each cannot read
// is logged as a bad what message and skipped. It is one attempt: callers
// retry it with Conn.do, dropping what an earlier attempt collected.
func (c *Conn) readSubject(ctx context.Context, st jetstream.Stream, subj, what string, batch int, each func(data []byte) error) error {
	want, err := subjectCount(ctx, st, subj)
	if err != nil || want == 0 {
		return err
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return err
	}
	for got := 0; got < want; {
		b, err := cons.Fetch(min(batch, want-got), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		n := 0
		for msg := range b.Messages() {
			n++
			if err := each(msg.Data()); err != nil {
				c.log.Warn("bad "+what+" message", "subject", msg.Subject(), "err", err)
			}
		}
		if err := b.Error(); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("read %d of the %d %s messages on %s", got, want, what, subj)
		}
		got += n
	}
	return nil
}
