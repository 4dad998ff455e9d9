package form

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// TestSimwebForms validates HIFI, with the embedded default model, on the
// forms of a generated simweb (driven by the shared data when present)
// against its ground truth: searchable or not, and the domain of the
// searchable forms of the twelve domains.
func TestSimwebForms(t *testing.T) {
	if testing.Short() {
		t.Skip("long: generates a simweb")
	}
	cfg := simweb.SmallConfig()
	cfg.Sites = 200
	cfg.Seed = 5
	if d, err := shareddata.Dir(); err == nil {
		cfg.Data = d
	}
	t.Logf("simweb seed %d, %d sites, data %q", cfg.Seed, cfg.Sites, cfg.Data)
	w, err := simweb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var truth bytes.Buffer
	if err := w.Truth(&truth); err != nil {
		t.Fatal(err)
	}
	h, err := NewHIFI(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client := w.Client()
	pages := map[string]*page.Page{}
	bin := learn.NewConfusion(Searchable, NotSearchable)
	dom := learn.NewConfusion()
	dec := json.NewDecoder(&truth)
	for {
		var fi simweb.FormInfo
		if err := dec.Decode(&fi); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		if fi.Type != "form" {
			continue
		}
		p := pages[fi.Page]
		if p == nil {
			resp, err := client.Get(fi.Page)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			u, _ := url.Parse(fi.Page)
			if p, err = page.Parse(b, resp.Header.Get("Content-Type"), u); err != nil {
				t.Fatal(err)
			}
			pages[fi.Page] = p
		}
		if fi.Index >= len(p.Forms) {
			t.Errorf("%s: form %d of %d", fi.Page, fi.Index, len(p.Forms))
			continue
		}
		u, _ := url.Parse(fi.Page)
		d := h.Classify(&p.Forms[fi.Index], u.Hostname())
		bin.Add(label(fi.Searchable), label(d.Searchable))
		if fi.Searchable && slices.Contains(domain.BuiltIn, fi.Domain) {
			dom.Add(fi.Domain, d.Domain)
		}
	}
	t.Logf("searchable vs not:\n%s\ndomains of the searchable forms of the twelve domains:\n%s", bin, dom)
	if bin.Accuracy() < 0.98 || bin.Class(Searchable).Recall < 0.95 {
		t.Errorf("searchable accuracy %.4f recall %.4f", bin.Accuracy(), bin.Class(Searchable).Recall)
	}
	if dom.N() < 50 || dom.Accuracy() < 0.95 {
		t.Errorf("domain accuracy %.4f on %d forms", dom.Accuracy(), dom.N())
	}
}

func label(searchable bool) string {
	if searchable {
		return Searchable
	}
	return NotSearchable
}
