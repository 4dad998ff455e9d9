package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// WebOptions choose a simulated web.
type WebOptions struct {
	// Seed is the web's seed. It replaces the config file's seed when
	// SeedSet, and is always used without a config file.
	Seed    int64
	SeedSet bool
	// Config is a JSON config file ("" for the built-in defaults).
	Config string
	// Data is the data directory; "" keeps the config's, else the shared
	// data folder when present, else the built-in data.
	Data string
}

// LoadWeb builds the simulated web opt describes.
func LoadWeb(opt WebOptions) (*simweb.Web, error) {
	cfg := simweb.DefaultConfig()
	if opt.Config != "" {
		var err error
		if cfg, err = simweb.LoadConfig(opt.Config); err != nil {
			return nil, err
		}
	}
	if opt.SeedSet || opt.Config == "" {
		cfg.Seed = opt.Seed
	}
	switch {
	case opt.Data != "":
		cfg.Data = opt.Data
	case cfg.Data == "":
		if d, err := shareddata.Dir(); err == nil {
			cfg.Data = d
		}
	}
	w, err := simweb.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulated web: %w", err)
	}
	return w, nil
}

// WebData names the data a simulated web was generated from.
func WebData(w *simweb.Web) string {
	if dir := w.Config().Data; dir != "" {
		return "data " + dir
	}
	return "built-in data"
}

// ServeWeb serves the web on addr until ctx is cancelled, printing where
// and how to reach it on out. requestLog, when not "", is a file that gets
// one line per request (see simweb.ServeOptions.RequestLog).
func ServeWeb(ctx context.Context, w *simweb.Web, addr string, proxy bool, requestLog string, out io.Writer) error {
	opt := simweb.ServeOptions{Proxy: proxy}
	if requestLog != "" {
		f, err := os.Create(requestLog)
		if err != nil {
			return fmt.Errorf("testbed serve: request log: %w", err)
		}
		defer f.Close()
		opt.RequestLog = f
	}
	// the index and the record pools are ready before the address is
	// announced: generating the web is not serving it (bench cpu counts
	// a server's CPU time from the announcement)
	w.PrepareAll()
	srv, err := w.Listen(addr, opt)
	if err != nil {
		return err
	}
	data := w.Data().Dir
	if data == "" {
		data = "built-in data"
	}
	fmt.Fprintf(out, "simweb seed %d (%d sites, %s) serving on http://%s\n", w.Config().Seed, len(w.Sites()), data, srv.Addr)
	if proxy {
		fmt.Fprintf(out, "proxy mode: curl -x http://%s http://%s/search?q=used+cars\n", srv.Addr, simweb.SearchEngineHost)
	} else {
		fmt.Fprintf(out, "virtual hosts: curl -H 'Host: %s' http://%s/  (start with --proxy for curl -x and browsers)\n", simweb.SearchEngineHost, srv.Addr)
	}
	for _, d := range []string{"auto", "airfare", "book"} {
		if s := w.Seeds(d, 2); len(s) > 0 {
			fmt.Fprintf(out, "  %s seeds: %v\n", d, s)
		}
	}
	<-ctx.Done()
	return srv.Close()
}

// WriteWebStats prints the web's statistics table, or its Stats as JSON.
func WriteWebStats(w *simweb.Web, asJSON bool, out io.Writer) error {
	st := w.Stats()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return st.WriteTable(out)
}
