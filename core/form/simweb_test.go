package form

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// TestSimwebForms validates HIFI, with the embedded default model, on the
// forms of a generated simweb (driven by the shared data when present)
// against its ground truth: searchable or not; and, with each form's page
// as evidence (as the crawl gives it), its domain: a crawl of a domain
// finds the searchable forms of that domain relevant and those of other
// topics (other domains, off-topic databases) not.
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
	targets := map[string]*HIFI{}
	for _, d := range domain.BuiltIn {
		targets[d], _ = NewHIFI(nil, d)
	}
	client := w.Client()
	pages := map[string]*page.Page{}
	bin := learn.NewConfusion(Searchable, NotSearchable)
	dom := learn.NewConfusion()
	var own, ownN, other, otherN int
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
		f, ev := &p.Forms[fi.Index], PageEvidence(p)
		d := h.ClassifyIn(f, ev)
		bin.Add(label(fi.Searchable), label(d.Searchable))
		if !fi.Searchable || !d.Searchable {
			continue
		}
		want := fi.Domain
		if !domain.IsBuiltIn(want) {
			want = NoDomain
		}
		dom.Add(want, d.Domain)
		for _, td := range domain.BuiltIn {
			v := targets[td].ClassifyIn(f, ev)
			if td == want {
				ownN++
				if v.Relevant {
					own++
				}
			} else {
				otherN++
				if v.Relevant {
					other++
				}
			}
		}
	}
	t.Logf("searchable vs not:\n%s\ndomains of the searchable forms (no target):\n%s", bin, dom)
	t.Logf("with the form's domain as the target: relevant %d/%d; with another target: %d/%d", own, ownN, other, otherN)
	if bin.Accuracy() < 0.98 || bin.Class(Searchable).Recall < 0.95 {
		t.Errorf("searchable accuracy %.4f recall %.4f", bin.Accuracy(), bin.Class(Searchable).Recall)
	}
	if ownN < 50 || float64(own) < 0.9*float64(ownN) || float64(other) > 0.02*float64(otherN) {
		t.Errorf("relevant to their own domain %d/%d, to another %d/%d", own, ownN, other, otherN)
	}
}

func label(searchable bool) string {
	if searchable {
		return Searchable
	}
	return NotSearchable
}
