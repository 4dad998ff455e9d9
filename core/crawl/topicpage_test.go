package crawl

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// directory is a page listing sites of several topics, each entry in the
// directory's own phrasing.
const directory = `<html><head><title>Sites we like</title></head><body><h1>Sites we like</h1><ul>
<li><a href="http://a.example/">Chemistry Corner</a>: a glossary of chemistry and physics terms, one page per term</li>
<li><a href="http://b.example/">Court Notes</a>: a glossary of law and court terms, one page per term</li>
<li><a href="http://c.example/">Tune Talk</a>: a glossary of music terms, one page per term</li>
<li><a href="http://d.example/">Sports Words</a>: a glossary of sport terms, one page per term</li>
<li><a href="http://e.example/">Myths</a>: a glossary of mythology terms, one page per term</li>
</ul></body></html>`

func TestTopicText(t *testing.T) {
	tests := []struct {
		name     string
		html     string
		keywords []string
		want     []string // terms it must hold
		not      []string // terms it must not
	}{
		{"directory: the entries that speak most of the topic, without the directory's phrasing", directory,
			[]string{"chemistry", "physics", "glossary"}, []string{"chemistri", "physic", "corner"}, []string{"court", "music", "term", "page"}},
		{"directory without the topic: nothing", directory, []string{"cooking"}, nil, []string{"chemistri", "court", "music"}},
		{"a site's own page: all of it", `<html><head><title>Chemistry Corner</title></head><body><p>Terms of chemistry.</p>
<a href="/a">a</a><a href="http://x.example/">x</a></body></html>`, []string{"law"}, []string{"chemistri", "corner", "term"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, _ := url.Parse("http://dir.example/")
			p, err := page.Parse([]byte(tt.html), "text/html", base)
			if err != nil {
				t.Fatal(err)
			}
			got := text.Terms(topicText([]byte(tt.html), p, tt.keywords))
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q missing from %v", w, got)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("%q should not be in %v", w, got)
				}
			}
		})
	}
	if n := len(textBlocks([]byte(directory))); n != 6 {
		t.Errorf("%d blocks in the directory, want its heading and 5 entries: %q", n, strings.Join(textBlocks([]byte(directory)), " | "))
	}
}
