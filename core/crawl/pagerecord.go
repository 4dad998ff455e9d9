package crawl

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// encode appends the page record's JSON, the bytes encoding/json writes
// without HTML escaping (TestPageRecordEncode holds it to that reference on
// records whose every field is filled by reflection). A page is recorded per
// fetch, and json.Marshal's share of a crawl's CPU profile was 2 points
// higher than this encoder's.
func (r *pageRecord) encode(b []byte) ([]byte, error) {
	if y := r.Fetched.Year(); y < 0 || y > 9999 {
		return json.Marshal(r) // its error names the value
	}
	for _, f := range r.Forms {
		if math.IsNaN(f.P) || math.IsInf(f.P, 0) {
			return json.Marshal(r)
		}
	}
	b = append(b, `{"url":`...)
	b = appendJSONString(b, r.URL)
	if r.Final != "" {
		b = appendJSONString(append(b, `,"final":`...), r.Final)
	}
	b = appendJSONString(append(b, `,"site":`...), r.Site)
	if r.Parent != "" {
		b = appendJSONString(append(b, `,"parent":`...), r.Parent)
	}
	b = strconv.AppendInt(append(b, `,"depth":`...), int64(r.Depth), 10)
	b = strconv.AppendInt(append(b, `,"status":`...), int64(r.Status), 10)
	if r.Err != "" {
		b = appendJSONString(append(b, `,"err":`...), r.Err)
	}
	if r.Title != "" {
		b = appendJSONString(append(b, `,"title":`...), r.Title)
	}
	if r.Text != "" {
		b = appendJSONString(append(b, `,"text":`...), r.Text)
	}
	if len(r.Links) > 0 {
		b = append(b, `,"links":[`...)
		for i, l := range r.Links {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(b, `{"u":`...), l.U)
			if l.A != "" {
				b = appendJSONString(append(b, `,"a":`...), l.A)
			}
			if l.B != "" {
				b = appendJSONString(append(b, `,"b":`...), l.B)
			}
			if l.F != "" {
				b = appendJSONString(append(b, `,"f":`...), l.F)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Forms) > 0 {
		b = append(b, `,"forms":[`...)
		for i, f := range r.Forms {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"i":`...), int64(f.Index), 10)
			b = appendJSONString(append(b, `,"k":`...), f.Kind)
			if f.Searchable {
				b = append(b, `,"s":true`...)
			}
			if f.Relevant {
				b = append(b, `,"r":true`...)
			}
			if f.Dup {
				b = append(b, `,"d":true`...)
			}
			b = appendJSONFloat(append(b, `,"p":`...), f.P)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"seq":`...), r.Seq, 10)
	b = append(b, `,"fetched":"`...)
	b = r.Fetched.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if r.Refetches != 0 {
		b = strconv.AppendInt(append(b, `,"refetches":`...), int64(r.Refetches), 10)
	}
	return append(b, '}'), nil
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal, in exponent form below 1e-6 and from 1e21 on.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, as encoding/json writes it
// less its HTML escaping; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			// encoding/json escapes them (JavaScript line terminators)
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
