// Package sitemap reads sitemaps (the sitemaps.org protocol 0.9): URL sets
// and sitemap index files, in XML or plain text (one URL per line), plain or
// gzip-compressed, within size and count limits. A crawl feeds the URLs of a
// site's sitemaps (from robots.txt Sitemap: lines and /sitemap.xml) to its
// in-site frontier: pages a site lists but links poorly, such as a search
// page, are reached without guessing.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// MaxBytes is the protocol's limit on an uncompressed sitemap file (50 MB),
// the default of Limits.MaxBytes.
const MaxBytes = 50 << 20

// Limits bound what Parse reads.
type Limits struct {
	// MaxBytes bounds the uncompressed size read (default MaxBytes); the
	// rest of a longer file is ignored and the result marked Truncated.
	MaxBytes int64
	// MaxURLs bounds the URLs returned (default 50,000, the protocol's).
	MaxURLs int
}

// Sitemap is a parsed sitemap file.
type Sitemap struct {
	// Index is set for a sitemap index: URLs are then sitemap files.
	Index bool
	// URLs are the <loc> values (absolute http(s) URLs), in file order.
	URLs []string
	// Truncated says that a limit cut the file.
	Truncated bool
}

// ErrNotSitemap is returned for a body that is neither a sitemap XML file
// nor a text sitemap (an HTML error page, say).
var ErrNotSitemap = errors.New("sitemap: not a sitemap")

// Parse reads body, a sitemap file as fetched (gzip is recognised by its
// magic number, whatever the file name or content type).
func Parse(body []byte, lim Limits) (*Sitemap, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = MaxBytes
	}
	if lim.MaxURLs <= 0 {
		lim.MaxURLs = 50000
	}
	sm := &Sitemap{}
	var r io.Reader = bytes.NewReader(body)
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("sitemap: gzip: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxBytes+1))
	if int64(len(data)) > lim.MaxBytes {
		data, sm.Truncated = data[:lim.MaxBytes], true
	} else if err != nil {
		// a gzip stream cut short (a body truncated by the fetcher): keep
		// what was decompressed
		sm.Truncated = true
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return sm, nil
	}
	if trimmed[0] != '<' {
		return parseText(trimmed, sm, lim)
	}
	return parseXML(data, sm, lim)
}

// parseXML reads <urlset><url><loc> or <sitemapindex><sitemap><loc>,
// whatever the namespace.
func parseXML(data []byte, sm *Sitemap, lim Limits) (*Sitemap, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	root := ""
	inLoc := false
	var loc strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if root == "" {
				return nil, fmt.Errorf("%w: %w", ErrNotSitemap, err)
			}
			sm.Truncated = true // a cut file: keep the URLs read
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if root == "" {
				root = name
				switch root {
				case "urlset":
				case "sitemapindex":
					sm.Index = true
				default:
					return nil, fmt.Errorf("%w: root element <%s>", ErrNotSitemap, t.Name.Local)
				}
				continue
			}
			if name == "loc" {
				inLoc = true
				loc.Reset()
			}
		case xml.CharData:
			if inLoc {
				loc.Write(t)
			}
		case xml.EndElement:
			if inLoc && strings.EqualFold(t.Name.Local, "loc") {
				inLoc = false
				if !add(sm, loc.String(), lim) {
					return sm, nil
				}
			}
		}
	}
	if root == "" {
		return nil, ErrNotSitemap
	}
	return sm, nil
}

// parseText reads a text sitemap: one absolute URL per line.
func parseText(data []byte, sm *Sitemap, lim Limits) (*Sitemap, error) {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "http://") && !strings.HasPrefix(line, "https://") {
			if len(sm.URLs) == 0 {
				return nil, ErrNotSitemap
			}
			continue
		}
		if !add(sm, line, lim) {
			break
		}
	}
	return sm, nil
}

// add appends an absolute http(s) URL; false when the URL limit is reached.
func add(sm *Sitemap, raw string, lim Limits) bool {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return true
	}
	if len(sm.URLs) >= lim.MaxURLs {
		sm.Truncated = true
		return false
	}
	sm.URLs = append(sm.URLs, u.String())
	return true
}
