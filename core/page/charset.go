package page

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// metaScan is how far into a document a <meta> charset declaration is looked
// for. The HTML standard says 1024 bytes, but real pages put long scripts
// and comments first; 4096 is what common crawlers use.
const metaScan = 4096

// decode returns body as valid UTF-8, cut at the first NUL byte.
func decode(body []byte, contentType string) []byte {
	return truncateNUL(toUTF8(body, contentType))
}

func toUTF8(body []byte, contentType string) []byte {
	switch {
	case bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")):
		return validUTF8(body[3:])
	case bytes.HasPrefix(body, []byte("\xFF\xFE")):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), body)
	case bytes.HasPrefix(body, []byte("\xFE\xFF")):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.UseBOM), body)
	}
	if utf8.Valid(body) && hasHighBit(body) {
		// Non-ASCII text in a legacy charset is almost never valid UTF-8;
		// a page that is valid UTF-8 but declares Latin-1 or windows-1251
		// was re-encoded (or its server mislabels it).
		return body
	}
	if label := headerCharset(contentType); label != "" {
		if e, name := charset.Lookup(label); e != nil {
			if name == "utf-8" {
				return validUTF8(body)
			}
			return decodeWith(e, body)
		}
	}
	if label := metaCharset(body); label != "" {
		if e, name := charset.Lookup(label); e != nil {
			// A document that could declare its charset in ASCII is not
			// UTF-16, whatever it says (HTML standard, prescan).
			if name == "utf-8" || strings.HasPrefix(name, "utf-16") {
				return validUTF8(body)
			}
			return decodeWith(e, body)
		}
	}
	if utf8.Valid(body) {
		return body
	}
	return decodeWith(charmap.Windows1252, body)
}

func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

func decodeWith(e encoding.Encoding, body []byte) []byte {
	out, err := e.NewDecoder().Bytes(body)
	if err != nil {
		return validUTF8(body)
	}
	return validUTF8(out)
}

func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// truncateNUL cuts b at its first NUL byte.
func truncateNUL(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

func headerCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return params["charset"]
}

// metaCharset returns the charset label of the first <meta charset> or
// <meta http-equiv="content-type" content="…; charset=…"> in the first
// metaScan bytes of body.
func metaCharset(body []byte) string {
	if len(body) > metaScan {
		body = body[:metaScan]
	}
	if !bytes.Contains(body, []byte("charset")) && !bytes.Contains(body, []byte("CHARSET")) &&
		!bytes.Contains(body, []byte("Charset")) {
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var equiv, content string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					if cs := strings.TrimSpace(string(v)); cs != "" {
						return cs
					}
				case "http-equiv":
					equiv = string(v)
				case "content":
					content = string(v)
				}
			}
			if strings.EqualFold(strings.TrimSpace(equiv), "content-type") {
				if cs := contentCharset(content); cs != "" {
					return cs
				}
			}
		}
	}
}

// contentCharset extracts the charset from a meta content value such as
// "text/html; charset=ISO-8859-1".
func contentCharset(s string) string {
	i := strings.Index(strings.ToLower(s), "charset")
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+len("charset"):], " \t\n\r\f")
	if !strings.HasPrefix(s, "=") {
		return ""
	}
	s = strings.TrimLeft(s[1:], " \t\n\r\f")
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if j := strings.IndexByte(s, q); j >= 0 {
			return s[:j]
		}
		return ""
	}
	if j := strings.IndexAny(s, "; \t\n\r\f\"'"); j >= 0 {
		s = s[:j]
	}
	return s
}
