package simweb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// RunServe serves the web on addr until ctx is cancelled, printing where.
func RunServe(ctx context.Context, w *Web, addr string, proxy bool, out io.Writer) error {
	srv, err := w.Listen(addr, ServeOptions{Proxy: proxy})
	if err != nil {
		return err
	}
	go w.Prepare()
	data := w.data.Dir
	if data == "" {
		data = "built-in data"
	}
	fmt.Fprintf(out, "simweb seed %d (%d sites, %s) serving on http://%s\n", w.cfg.Seed, len(w.sites), data, srv.Addr)
	if proxy {
		fmt.Fprintf(out, "proxy mode: curl -x http://%s http://%s/search?q=used+cars\n", srv.Addr, SearchEngineHost)
	} else {
		fmt.Fprintf(out, "virtual hosts: curl -H 'Host: %s' http://%s/  (start with --proxy for curl -x and browsers)\n", SearchEngineHost, srv.Addr)
	}
	for _, d := range []string{"auto", "airfare", "book"} {
		if s := w.Seeds(d, 2); len(s) > 0 {
			fmt.Fprintf(out, "  %s seeds: %v\n", d, s)
		}
	}
	<-ctx.Done()
	return srv.Close()
}

// RunStats prints the stats table, or the Stats as JSON.
func RunStats(w *Web, asJSON bool, out io.Writer) error {
	st := w.Stats()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return st.WriteTable(out)
}
