package store

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// A crawl writes a site record for every site it finds and rewrites it as
// the site is queued, begun and explored (11,000 writes per 10k pages):
// json.Marshal took 1.3-2.4 µs and 5 allocations a record (0.09 s of client
// CPU per 10k pages in the profile, with its garbage), the appends below
// 0.25 µs and none (BenchmarkSiteJSON). They write what encoding/json
// writes, less its HTML escaping, so any JSON decoder reads the same
// record (TestSiteJSONRandom).

// appendSiteJSON appends s as JSON, the fields and omissions of Site's
// struct tags.
func appendSiteJSON(b []byte, s *Site) ([]byte, error) {
	if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) || !jsonTime(s.FirstSeen) || !jsonTime(s.VisitedAt) {
		v, err := json.Marshal(s) // its error names the value
		return append(b, v...), err
	}
	b = AppendJSONString(append(b, `{"url":`...), s.URL)
	b = AppendJSONString(append(b, `,"host":`...), s.Host)
	if s.Domain != "" {
		b = AppendJSONString(append(b, `,"domain":`...), s.Domain)
	}
	b = AppendJSONString(append(b, `,"status":`...), string(s.Status))
	b = appendJSONFloat(append(b, `,"score":`...), s.Score)
	if s.Queue != "" {
		b = AppendJSONString(append(b, `,"queue":`...), s.Queue)
	}
	if s.Deep {
		b = append(b, `,"deep":true`...)
	}
	if s.Forms != 0 {
		b = strconv.AppendInt(append(b, `,"forms":`...), int64(s.Forms), 10)
	}
	if s.Pages != 0 {
		b = strconv.AppendInt(append(b, `,"pages":`...), int64(s.Pages), 10)
	}
	if !s.FirstSeen.IsZero() {
		b = appendJSONTime(append(b, `,"first_seen":`...), s.FirstSeen)
	}
	if !s.VisitedAt.IsZero() {
		b = appendJSONTime(append(b, `,"visited_at":`...), s.VisitedAt)
	}
	if s.From != "" {
		b = AppendJSONString(append(b, `,"from":`...), s.From)
	}
	if len(s.Entries) > 0 {
		b = append(b, `,"entries":[`...)
		for i, u := range s.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, u)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// jsonTime reports whether t has a JSON form (time.Time.MarshalJSON fails
// outside the years 0-9999).
func jsonTime(t time.Time) bool {
	y := t.Year()
	return t.IsZero() || (y >= 0 && y <= 9999)
}

func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
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

// AppendJSONString appends s as a JSON string, as encoding/json writes it
// less its HTML escaping; invalid UTF-8 becomes U+FFFD. For records whose
// JSON is written by hand (a page record, a site).
func AppendJSONString(b []byte, s string) []byte {
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
