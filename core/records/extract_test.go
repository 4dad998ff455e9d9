package records

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func urls(rs []Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URL
	}
	return out
}

// TestExtract reads hand-written result pages laid out as the lab's
// applications lay theirs out (WordPress articles beside a sidebar of
// recent posts and archives, cgit's table with a header row, Omega's page
// that is one form with page buttons, DokuWiki's two result lists with
// highlight parameters).
func TestExtract(t *testing.T) {
	tests := []struct {
		file, base, query string
		page              int
		template          string // the form's page, for its furniture
		want              []string
		total             int
		next              string // URL of the next page ("" none)
		control           string
	}{
		{"articles.html", "http://blog.test/?s=learning", "learning", 1, "articles-home.html",
			[]string{"http://blog.test/?p=2060", "http://blog.test/?p=2169", "http://blog.test/?p=2157"},
			1788, "http://blog.test/?paged=2&s=learning", ControlLink},
		{"articles.html", "http://blog.test/?s=learning", "learning", 1, "",
			[]string{"http://blog.test/?p=2060", "http://blog.test/?p=2169", "http://blog.test/?p=2157"},
			1788, "http://blog.test/?paged=2&s=learning", ControlLink},
		{"table.html", "http://git.test/cars/log/?qt=grep&q=ford", "ford", 1, "",
			[]string{"http://git.test/cars/commit/?id=5d03e2", "http://git.test/cars/commit/?id=5e3071", "http://git.test/cars/commit/?id=b35adf", "http://git.test/cars/commit/?id=2e82e9"},
			-1, "http://git.test/cars/log/?ofs=25&q=ford&qt=grep", ControlLink},
		{"formpager.html", "http://law.test/cgi-bin/omega?P=law&TOPDOC=0", "law", 2, "",
			[]string{"http://law.test/terms/law_practice.html", "http://law.test/terms/law_firm.html", "http://law.test/terms/tax_law.html"},
			599, "http://law.test/cgi-bin/omega?%3E=Next&DB=default&DEFAULTOP=and&P=law&TOPDOC=10&xP=Zlaw", ControlButton},
		{"quickhits.html", "http://music.test/doku.php?do=search&q=tempo", "tempo", 1, "",
			[]string{"http://music.test/doku.php?id=music:tempo", "http://music.test/doku.php?id=music:tempo_marking", "http://music.test/doku.php?id=music:allegro"},
			-1, "", ""},
		{"nothing.html", "http://music.test/doku.php?do=search&q=qzxv", "qzxv", 1, "", nil, 0, "", ""},
		// gitweb: zebra rows ("dark", "light") whose first link, a search
		// for the commit's author, is the same in every row; ';' between
		// parameters; the table's last row holds the pager
		{"gitweb.html", "http://git.test/?a=search&h=HEAD&p=cars.git&s=Add&st=commit", "Add", 1, "",
			[]string{"http://git.test/?p=cars.git;a=commit;h=39b443db9e697b254733430a60ee00f86fb5ccbc", "http://git.test/?p=cars.git;a=commit;h=5d03e298d78ac934548fc7fc1bc492760c6a1694",
				"http://git.test/?p=cars.git;a=commit;h=89bf583bdeccc34da6c06919c6fbbc2215b9b689", "http://git.test/?p=cars.git;a=commit;h=10885c46442e39a6eefc94a633dc47e7437883e3",
				"http://git.test/?p=cars.git;a=commit;h=5e3071197a8f31243003129b6a0702e0dda23afe"},
			-1, "http://git.test/?p=cars.git;a=search;h=HEAD;pg=1;s=Add;st=commit", ControlLink},
		// pydoc (Python 3.11's module browser): the records are lines of
		// one table cell, each a link and its synopsis before a <br>
		{"pydoc.html", "http://py.test/search?key=signal", "signal", 1, "",
			[]string{"http://py.test/_signal.html", "http://py.test/asyncio.unix_events.html", "http://py.test/signal.html",
				"http://py.test/test.signalinterproctester.html", "http://py.test/test.test_signal.html", "http://py.test/test.test_threadsignals.html",
				"http://py.test/unittest.signals.html", "http://py.test/flask.signals.html", "http://py.test/mpmath.functions.signals.html",
				"http://py.test/trio._signals.html", "http://py.test/trio._tests.test_signals.html"},
			-1, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.template, func(t *testing.T) {
			base := mustURL(t, tt.base)
			opt := Options{Query: tt.query, Page: tt.page}
			if tt.template != "" {
				tm, err := TemplateOf(fixture(t, tt.template), base)
				if err != nil {
					t.Fatal(err)
				}
				opt.Template = tm
			}
			res, err := Extract(fixture(t, tt.file), base, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(urls(res.Records), " "); got != strings.Join(tt.want, " ") {
				t.Errorf("records\n got %s\nwant %s", got, strings.Join(tt.want, " "))
			}
			if res.Total != tt.total {
				t.Errorf("total %d (%q), want %d", res.Total, res.TotalText, tt.total)
			}
			switch {
			case tt.next == "" && res.Next != nil:
				t.Errorf("next %+v, want none", res.Next)
			case tt.next != "" && (res.Next == nil || res.Next.URL != tt.next || res.Next.Control != tt.control):
				t.Errorf("next %+v, want %s by %s", res.Next, tt.next, tt.control)
			}
			for _, r := range res.Records {
				if r.Title == "" || !strings.Contains(strings.ToLower(r.Text), strings.ToLower(r.Title)) {
					t.Errorf("record %s: title %q not in its text %q", r.URL, r.Title, r.Text)
				}
			}
			if res.Wrapper.Known() {
				// the template learned here reads the same records
				opt.Wrapper = res.Wrapper
				again, err := Extract(fixture(t, tt.file), base, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(urls(again.Records), " "); got != strings.Join(tt.want, " ") {
					t.Errorf("records through the learned template %+v\n got %s\nwant %s", res.Wrapper, got, strings.Join(tt.want, " "))
				}
			}
		})
	}
}

// TestWrapper: the template learned on a page with several records reads a
// page with one record (which repeats nothing) and keeps a "popular pages"
// box of a page that found nothing out of the records.
func TestWrapper(t *testing.T) {
	base := mustURL(t, "http://blog.test/?s=learning")
	many, err := Extract(fixture(t, "articles.html"), base, Options{Query: "learning"})
	if err != nil {
		t.Fatal(err)
	}
	if !many.Learned || !many.Wrapper.Known() {
		t.Fatalf("no template learned: %+v", many)
	}
	one, err := Extract(fixture(t, "single.html"), mustURL(t, "http://blog.test/?s=cacophony"), Options{Query: "cacophony", Wrapper: many.Wrapper})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Records) != 1 || one.Records[0].URL != "http://blog.test/?p=2060" || one.Learned {
		t.Errorf("one record page with the template: %+v", one.Records)
	}
	if one.Total != 1 {
		t.Errorf("total %d (%q), want 1", one.Total, one.TotalText)
	}
	alone, err := Extract(fixture(t, "single.html"), mustURL(t, "http://blog.test/?s=cacophony"), Options{Query: "cacophony"})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Records) != 0 {
		t.Errorf("one record without a template: %d records (one item repeats nothing)", len(alone.Records))
	}

	music := mustURL(t, "http://music.test/doku.php?do=search&q=tempo")
	hits, err := Extract(fixture(t, "quickhits.html"), music, Options{Query: "tempo"})
	if err != nil {
		t.Fatal(err)
	}
	none, err := Extract(fixture(t, "nothing.html"), music, Options{Query: "tempo", Wrapper: hits.Wrapper})
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Records) != 0 || none.NoResults == "" || none.Total != 0 {
		t.Errorf("a page saying nothing was found: %d records %v, no-results %q, total %d", len(none.Records), urls(none.Records), none.NoResults, none.Total)
	}
}

func TestFindTotal(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"Results 1 – 20 of 2,917", 2917},
		{"Results 1 - 10 of 3881 for cars", 3881},
		{"1-10 of exactly 599 matches", 599},
		{"About 599 results (0.3 seconds)", 599},
		{"We found 1788 results for your search.", 1788},
		{"Showing 21 to 40 of about 12.345 listings", 12345},
		{"Results: 120", 120},
		{"2 917 matches found", 2917},
		{"Page 1 of 179", -1},
		{"Published in 2015, pages 283-284", -1},
		{"no count here", -1},
	}
	for _, tt := range tests {
		if got, _ := findTotal(tt.text); got != tt.want {
			t.Errorf("findTotal(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestNoResults(t *testing.T) {
	for _, s := range []string{"There were no results matching the query.", "Sorry, but nothing matched your search terms.",
		"Nothing was found.", "No documents match your query", "Your search did not match any documents.", "0 results",
		"Your search returned no matches.", "Keine Treffer"} {
		if saysNoResults(s) == "" {
			t.Errorf("%q: not read as no results", s)
		}
	}
	for _, s := range []string{"We found 12 results", "Results 1 - 10 of 20", "No. 5 in the charts"} {
		if p := saysNoResults(s); p != "" {
			t.Errorf("%q read as no results (%q)", s, p)
		}
	}
}

func TestNextCaption(t *testing.T) {
	for _, s := range []string{"Next", "next »", "[next]", "Next 20", "Older posts", "›", "»", "more results", "Suivant", "Next page"} {
		if !nextCaption(s) {
			t.Errorf("%q: not a next control", s)
		}
	}
	for _, s := range []string{"Previous", "« prev", "Newer posts", "Last »", "First", "next generation sequencing", "Search", "2"} {
		if nextCaption(s) {
			t.Errorf("%q read as a next control", s)
		}
	}
}

func TestDetail(t *testing.T) {
	body := []byte(`<html><head><title>Ford Ranger (1982)</title></head><body><nav><a href="/">Home</a> <a href="/cars">Cars</a></nav>
<main><h1>Ford Ranger</h1><dl><dt>Year</dt><dd>1982</dd><dt>Cylinders</dt><dd>4</dd></dl>
<table><tr><th>Origin</th><td>USA</td></tr></table></main><footer>Lab Code</footer></body></html>`)
	fields, text := Detail(body)
	if fields["year"] != "1982" || fields["cylinders"] != "4" || fields["origin"] != "USA" || fields["title"] != "Ford Ranger (1982)" {
		t.Errorf("fields %v", fields)
	}
	if !strings.Contains(text, "Ford Ranger") || strings.Contains(text, "Home") || strings.Contains(text, "Lab Code") {
		t.Errorf("main text %q", text)
	}
}

// FuzzExtract: any bytes give a result or an error, never a panic, and every
// record link is an absolute http(s) URL.
func FuzzExtract(f *testing.F) {
	for _, name := range []string{"articles.html", "table.html", "formpager.html", "quickhits.html", "nothing.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "law")
	}
	f.Add([]byte("<ul><li><a href=x>a</a><li><a href=y>b</a></ul><form><input type=submit name=n value=Next></form>"), "a")
	base, _ := url.Parse("http://fuzz.test/search?q=a")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		res, err := Extract(body, base, Options{Query: query, Page: 1})
		if err != nil {
			return
		}
		for _, r := range res.Records {
			if r.URL != "" && !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") {
				t.Fatalf("record URL %q", r.URL)
			}
		}
	})
}

func TestInterleave(t *testing.T) {
	for _, tc := range []struct {
		a, b []int
		want bool
	}{
		{[]int{0, 2, 4}, []int{1, 3, 5}, true},  // zebra rows
		{[]int{0, 1, 2}, []int{3, 4}, false},    // two lists one after the other
		{[]int{0, 5}, []int{2}, false},          // a lone element inside a list
		{[]int{0, 1, 4, 5}, []int{2, 3}, false}, // a block inside a list: no element of the list between the block's
		{[]int{0, 3, 6}, []int{1, 2, 4, 5}, true},
	} {
		if got := interleave(tc.a, tc.b); got != tc.want {
			t.Errorf("interleave(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestPagerRow: a row of the result table that holds only the pager is not
// a record, while a record titled like a pager word that links where the
// others do is one.
func TestPagerRow(t *testing.T) {
	page := `<html><body><table class="results">
<tr><td><a href="/term/first">first</a></td></tr>
<tr><td><a href="/term/allegro">allegro</a> a brisk tempo</td></tr>
<tr><td><a href="/term/next">next</a></td></tr>
<tr><td><a href="/term/presto">presto</a> a very fast tempo</td></tr>
<tr><td><a href="/search?q=tempo&amp;page=2">next</a></td></tr>
</table></body></html>`
	res, err := Extract([]byte(page), mustURL(t, "http://music.test/search?q=tempo"), Options{Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := "http://music.test/term/first http://music.test/term/allegro http://music.test/term/next http://music.test/term/presto"
	if got := strings.Join(urls(res.Records), " "); got != want {
		t.Errorf("records\n got %s\nwant %s", got, want)
	}
	if res.Next == nil || res.Next.URL != "http://music.test/search?page=2&q=tempo" {
		t.Errorf("next %+v, want page 2", res.Next)
	}
	for _, tc := range []struct {
		text string
		want bool
	}{{"next", true}, {"first · prev · next", true}, {"« Previous | Next »", true}, {"Last modified: 3 hours ago", false}, {"next generation sequencing", false}} {
		if got := pagerRow(tc.text); got != tc.want {
			t.Errorf("pagerRow(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInlineRecords: a record written as a line of a cell takes the text
// beside its link up to the line break, and no more.
func TestInlineRecords(t *testing.T) {
	res, err := Extract(fixture(t, "pydoc.html"), mustURL(t, "http://py.test/search?key=signal"), Options{Query: "signal"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"http://py.test/_signal.html":                 "_signal - This module provides mechanisms to use signal handlers in Python.",
		"http://py.test/signal.html":                  "signal",
		"http://py.test/test.test_threadsignals.html": "test.test_threadsignals - PyUnit testing that threads honor our signal semantics",
	}
	got := map[string]string{}
	for _, r := range res.Records {
		got[r.URL] = r.Text
	}
	for u, w := range want {
		if got[u] != w {
			t.Errorf("%s: text %q, want %q", u, got[u], w)
		}
	}
}

// TestWiden: a pager that offers page sizes (MediaWiki's "20 | 50 | 100 |
// 250 | 500") is followed with the largest size up to maxPageSize, from
// the offset of its next link; page numbers and lone links are not sizes.
func TestWiden(t *testing.T) {
	results := func(pager string) string {
		var b strings.Builder
		b.WriteString(`<html><body><ul class="mw-search-results">`)
		for i := range 20 {
			fmt.Fprintf(&b, `<li><div><a href="/index.php?title=Film_%d">Film %d</a></div><div>Film %d is a drama film.</div></li>`, i, i, i)
		}
		b.WriteString(`</ul><div class="pager">` + pager + `</div></body></html>`)
		return b.String()
	}
	const sizes = `View (previous 20 | <a href="/index.php?title=Special:Search&amp;limit=20&amp;offset=20&amp;search=drama" rel="next" class="mw-nextlink">next 20</a>)
(20 | <a href="/index.php?title=Special:Search&amp;limit=50&amp;offset=0&amp;search=drama">50</a> | <a href="/index.php?title=Special:Search&amp;limit=100&amp;offset=0&amp;search=drama">100</a>
| <a href="/index.php?title=Special:Search&amp;limit=250&amp;offset=0&amp;search=drama">250</a> | <a href="/index.php?title=Special:Search&amp;limit=500&amp;offset=0&amp;search=drama">500</a>)`
	for _, tc := range []struct {
		name, pager, want string
		size              int
	}{
		{"page sizes", sizes, "http://wiki.test/index.php?limit=500&offset=20&search=drama&title=Special%3ASearch", 500},
		{"sizes above the cap", strings.ReplaceAll(strings.ReplaceAll(sizes, "limit=250", "limit=2500"), "limit=500&", "limit=5000&"),
			"http://wiki.test/index.php?limit=100&offset=20&search=drama&title=Special%3ASearch", 100},
		{"one other size", `<a href="/s?q=drama&amp;n=20&amp;start=20" rel="next">next</a> <a href="/s?q=drama&amp;n=50&amp;start=0">50</a>`,
			"http://wiki.test/s?n=20&q=drama&start=20", 0},
		{"page numbers", `<a href="/s?q=drama&amp;page=2" rel="next">next</a> <a href="/s?q=drama&amp;page=3">3</a> <a href="/s?q=drama&amp;page=4">4</a>`,
			"http://wiki.test/s?page=2&q=drama", 0},
		{"sizes that keep the offset", `<a href="/s?q=drama&amp;n=20&amp;start=20" rel="next">next</a> <a href="/s?q=drama&amp;n=50&amp;start=20">50</a> <a href="/s?q=drama&amp;n=100&amp;start=20">100</a>`,
			"http://wiki.test/s?n=20&q=drama&start=20", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract([]byte(results(tc.pager)), mustURL(t, "http://wiki.test/index.php?search=drama&title=Special:Search&fulltext=1"), Options{Query: "drama", Page: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != 20 {
				t.Errorf("%d records, want 20", len(res.Records))
			}
			if res.Next == nil || res.Next.URL != tc.want || res.Next.PageSize != tc.size {
				t.Errorf("next %+v, want %s (page size %d)", res.Next, tc.want, tc.size)
			}
		})
	}
}
