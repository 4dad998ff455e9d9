package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestParse(t *testing.T) {
	urlset := []string{"https://www.example.com/", "https://www.example.com/search?q=&type=all", "https://www.example.com/catalog/page-2"}
	tests := []struct {
		name      string
		body      []byte
		lim       Limits
		index     bool
		want      []string
		truncated bool
		err       error
	}{
		{name: "urlset", body: read(t, "urlset.xml"), want: urlset},
		{name: "gzip", body: gz(read(t, "urlset.xml")), want: urlset},
		{name: "index", body: read(t, "index.xml"), index: true, want: []string{
			"https://www.example.com/wp-sitemap-posts-post-1.xml", "https://www.example.com/wp-sitemap-taxonomies-category-1.xml"}},
		{name: "text", body: read(t, "text.txt"), want: []string{"https://www.example.com/a", "https://www.example.com/b"}},
		{name: "url limit", body: read(t, "urlset.xml"), lim: Limits{MaxURLs: 2}, want: urlset[:2], truncated: true},
		{name: "size limit", body: read(t, "urlset.xml"), lim: Limits{MaxBytes: 330}, want: urlset[:2], truncated: true},
		{name: "cut gzip", body: gz(read(t, "urlset.xml"))[:150], truncated: true},
		{name: "html", body: []byte("<!DOCTYPE html><html><body>Not found</body></html>"), err: ErrNotSitemap},
		{name: "plain words", body: []byte("not found\n"), err: ErrNotSitemap},
		{name: "empty", body: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := Parse(tt.body, tt.lim)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "cut gzip" {
				// whatever was decompressed before the cut, and the flag
				if !sm.Truncated {
					t.Errorf("cut gzip not marked truncated: %+v", sm)
				}
				return
			}
			if sm.Index != tt.index || !slices.Equal(sm.URLs, tt.want) || sm.Truncated != tt.truncated {
				t.Errorf("got index=%v truncated=%v %q\nwant index=%v truncated=%v %q", sm.Index, sm.Truncated, sm.URLs, tt.index, tt.truncated, tt.want)
			}
		})
	}
}

func TestParseLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := 0; i < 60000; i++ {
		fmt.Fprintf(&b, "<url><loc>https://big.example.com/p/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>")
	sm, err := Parse(gz([]byte(b.String())), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.URLs) != 50000 || !sm.Truncated || sm.URLs[49999] != "https://big.example.com/p/49999" {
		t.Errorf("%d URLs, truncated %v", len(sm.URLs), sm.Truncated)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"urlset.xml", "index.xml", "text.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(gz(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sm, err := Parse(body, Limits{MaxBytes: 1 << 20, MaxURLs: 100})
		if err != nil {
			return
		}
		if len(sm.URLs) > 100 {
			t.Fatalf("%d URLs over the limit", len(sm.URLs))
		}
		for _, u := range sm.URLs {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				t.Fatalf("non-http URL %q", u)
			}
		}
	})
}
