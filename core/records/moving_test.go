package records

import (
	"fmt"
	"strings"
	"testing"
)

// TestPagerWithoutCaption reads pagers that say "next" in no text: image
// buttons, bare page numbers in brackets and offsets, where the next page
// is the link whose parameter steps past the current page's.
func TestPagerWithoutCaption(t *testing.T) {
	list := func() string {
		var b strings.Builder
		b.WriteString(`<html><body><h1>Results</h1><ol>`)
		for i := range 10 {
			fmt.Fprintf(&b, `<li><a href="/rec/%d.html">Record number %d about gardens</a><p>A garden record with some text, number %d.</p></li>`, i, i, i)
		}
		b.WriteString(`</ol>`)
		return b.String()
	}
	tests := []struct {
		name, base, pager, want string
		page                    int
	}{
		{"image next", "http://s.test/cgi?q=garden", `<a href="/cgi?q=garden&amp;page=2"><img src="r.gif" alt="next"></a>`, "http://s.test/cgi?page=2&q=garden", 1},
		{"image numbers without alt", "http://s.test/cgi?q=garden", `<a href="/cgi?q=garden&amp;page=1"><img src="b1.gif"></a> <a href="/cgi?q=garden&amp;page=2"><img src="b2.gif"></a> <a href="/cgi?q=garden&amp;page=3"><img src="b3.gif"></a>`, "http://s.test/cgi?page=2&q=garden", 0},
		{"bracketed numbers, offsets", "http://s.test/n.cgi?query=garden", `Page: [<b>1</b>] [<a href="/n.cgi?query=garden&amp;whence=20">2</a>] [<a href="/n.cgi?query=garden&amp;whence=40">3</a>]`, "http://s.test/n.cgi?query=garden&whence=20", 0},
		{"offsets, second page", "http://s.test/n.cgi?query=garden&whence=20", `[<a href="/n.cgi?query=garden&amp;whence=0">1</a>] [<b>2</b>] [<a href="/n.cgi?query=garden&amp;whence=40">3</a>]`, "http://s.test/n.cgi?query=garden&whence=40", 0},
		{"semicolons", "http://s.test/g?p=x;a=search;s=garden", `<a href="/g?p=x;a=search;s=garden;pg=1"><img src="n.png"></a> <a href="/g?p=x;a=search;s=garden;pg=2"><img src="n.png"></a>`, "http://s.test/g?p=x;a=search;s=garden;pg=2", 0},
		// (a value of 1 on the first page is read as the first page's own:
		// reading a page again would end the query, skipping one does not)
		{"years are no pager", "http://s.test/list?q=garden", `<a href="/list?q=garden&amp;year=1999">1999</a> <a href="/list?q=garden&amp;year=2000">2000</a>`, "", 0},
		{"last page", "http://s.test/n.cgi?query=garden&whence=40", `[<a href="/n.cgi?query=garden&amp;whence=0">1</a>] [<a href="/n.cgi?query=garden&amp;whence=20">2</a>] [<b>3</b>]`, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Extract([]byte(list()+`<div>`+tt.pager+`</div></body></html>`), mustURL(t, tt.base), Options{Query: "garden", Page: tt.page})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != 10 {
				t.Errorf("%d records, want 10", len(res.Records))
			}
			got := ""
			if res.Next != nil {
				got = res.Next.URL
			}
			if got != tt.want {
				t.Errorf("next %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCountsIn(t *testing.T) {
	tests := []struct {
		text string
		want []int // non-site counts first, then site counts
		site int   // number of site counts at the end
	}{
		{"This index contains 2,000 documents and 9,000 keywords. Total 128 documents matching your query.", []int{128, 2000}, 1},
		{"Results (115) Issues (115) (1-10/115)", []int{115}, 0},
		{"Documents 1 - 10 of 217 matches.", []int{217}, 0},
		{"The database holds 3,881 records. We found 12 results", []int{12, 3881}, 1},
	}
	for _, tt := range tests {
		cs := CountsIn(tt.text)
		var got []int
		site := 0
		for _, c := range cs {
			got = append(got, c.N)
			if c.Site {
				site++
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || site != tt.site {
			t.Errorf("CountsIn(%q) = %v (%d site), want %v (%d site)", tt.text, got, site, tt.want, tt.site)
		}
	}
}

// TestFallbackLinks reads a result page whose one record repeats nothing:
// its new links to its own site are the records, flagged as a fallback.
func TestFallbackLinks(t *testing.T) {
	home := `<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><form action="/search"><input name="q"></form>
<p><a href="/projects/x">Project X</a></p></body></html>`
	result := `<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><form action="/search"><input name="q" value="clinic"></form>
<h2>Results (1)</h2><div><a href="/issues/12">Issue 12: clinic hours</a> <span>in Project X</span></div>
<p><a href="/projects/x">Project X</a> <a href="/search?q=clinic&amp;titles=1">titles only</a></p></body></html>`
	tmpl, err := TemplateOf([]byte(home), mustURL(t, "http://s.test/"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Extract([]byte(result), mustURL(t, "http://s.test/search?q=clinic"), Options{Query: "clinic", Page: 1, Template: tmpl, Fallback: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fallback || len(res.Records) != 1 || res.Records[0].URL != "http://s.test/issues/12" {
		t.Errorf("fallback %v records %+v, want the one new link /issues/12", res.Fallback, res.Records)
	}
	if res.Total != 1 {
		t.Errorf("total %d, want 1", res.Total)
	}
}
