package clock

import (
	"context"
	"reflect"
	"testing"
	"time"
)

func TestFake(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewFake(start)
	ctx, cancel := context.WithCancel(context.Background())
	c.OnSleep = func(d time.Duration) {
		if d == time.Hour {
			cancel()
		}
	}
	if err := c.Sleep(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	if err := c.Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("sleep with a context cancelled meanwhile: %v", err)
	}
	if got, want := c.Now(), start.Add(time.Second+time.Minute); !got.Equal(want) {
		t.Errorf("now %v, want %v", got, want)
	}
	if got := c.Sleeps(); !reflect.DeepEqual(got, []time.Duration{time.Second}) {
		t.Errorf("sleeps %v, want [1s]", got)
	}
}
