package page

import (
	"net/url"
	"testing"
)

func TestDataSet(t *testing.T) {
	doc := `<form action="/find?old=1#top" method="get">
<input type="search" name="q" value="">
<input type="hidden" name="lang" value="en">
<select name="make"><option value="">Any</option><option value="ford" selected>Ford</option></select>
<select name="year"><option value="1982">1982</option><option value="1983">1983</option></select>
<select name="tags" multiple><option value="a" selected>A</option><option value="b" selected>B</option></select>
<input type="radio" name="op" value="or"><input type="radio" name="op" value="and" checked>
<input type="checkbox" name="exact"><input type="checkbox" name="safe" checked>
<input type="text" name="zip" value="02139" disabled>
<input type="file" name="upload">
<input type="submit" name="go" value="Go">
<input type="submit" name="fulltext" value="Search">
<button type="submit" name="btn" value="b1">Button</button>
<input type="image" name="pic" src="x.png">
</form>`
	p, err := Parse([]byte(doc), "text/html", mustParse(t, "http://site.test/page"))
	if err != nil {
		t.Fatal(err)
	}
	f := &p.Forms[0]
	subs := f.Submitters()
	if len(subs) != 4 {
		t.Fatalf("submitters %v, want go, fulltext, btn, pic", subs)
	}
	tests := []struct {
		name      string
		submitter int
		want      string
	}{
		{"implicit", NoSubmitter, "lang=en&make=ford&op=and&q=&safe=on&tags=a&tags=b&year=1982"},
		{"second button", subs[1], "fulltext=Search&lang=en&make=ford&op=and&q=&safe=on&tags=a&tags=b&year=1982"},
		{"button element", subs[2], "btn=b1&lang=en&make=ford&op=and&q=&safe=on&tags=a&tags=b&year=1982"},
		{"image", subs[3], "lang=en&make=ford&op=and&pic.x=0&pic.y=0&q=&safe=on&tags=a&tags=b&year=1982"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.DataSet(tt.submitter).Encode(); got != tt.want {
				t.Errorf("data set\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	v := f.DataSet(subs[1])
	v.Set("q", "used cars")
	s, err := f.Submit(v)
	if err != nil {
		t.Fatal(err)
	}
	// GET replaces the action's query and drops its fragment
	if s.Method != "GET" || s.URL != "http://site.test/find?fulltext=Search&lang=en&make=ford&op=and&q=used+cars&safe=on&tags=a&tags=b&year=1982" {
		t.Errorf("submission %s %s", s.Method, s.URL)
	}
}

func TestSubmitPost(t *testing.T) {
	p, err := Parse([]byte(`<form action="search.php" method="post"><input name="kw" value="x"></form><form action="javascript:go()"><input name="q"></form>`),
		"text/html", mustParse(t, "http://site.test/dir/"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Forms[0].Submit(url.Values{"kw": {"cars"}})
	if err != nil || s.Method != "POST" || s.URL != "http://site.test/dir/search.php" || s.Values.Get("kw") != "cars" {
		t.Errorf("POST submission %+v, %v", s, err)
	}
	if _, err := p.Forms[1].Submit(url.Values{}); err == nil {
		t.Error("a javascript: action was submitted")
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
