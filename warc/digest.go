package warc

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// Digest returns the customary WARC digest of b: "sha1:" and the SHA-1 in
// base32.
func Digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// checkDigests verifies the record's block and payload digests, returning
// a problem for each that does not match or cannot be checked.
func (rec *Record) checkDigests() []string {
	var out []string
	if d := rec.Header.Get("WARC-Block-Digest"); d != "" {
		if p := verify("WARC-Block-Digest", d, rec.Block); p != "" {
			out = append(out, p)
		}
	}
	d := rec.Header.Get("WARC-Payload-Digest")
	if d == "" || rec.Type() == "revisit" || rec.Header.Get("WARC-Segment-Number") != "" {
		return out // a revisit's payload digest is the original record's
	}
	var candidates [][]byte
	switch {
	case strings.HasPrefix(strings.ToLower(rec.Header.Get("Content-Type")), "application/http"):
		m, err := rec.HTTP()
		if err != nil {
			return append(out, "WARC-Payload-Digest not checked: "+err.Error())
		}
		// Writers differ on whether a chunked payload is digested before or
		// after decoding: either matches.
		candidates = append(candidates, m.Payload)
		if body, err := m.Body(); err == nil && !bytes.Equal(body, m.Payload) {
			candidates = append(candidates, body)
		}
	default:
		candidates = append(candidates, rec.Block)
	}
	var p string
	for _, c := range candidates {
		if p = verify("WARC-Payload-Digest", d, c); p == "" {
			break
		}
	}
	if p != "" {
		out = append(out, p)
	}
	return out
}

// verify checks that the digest field value d ("algorithm:value") is that
// of b; it returns "" when it is, else the problem.
func verify(field, d string, b []byte) string {
	algo, value, ok := strings.Cut(d, ":")
	if !ok {
		return fmt.Sprintf("%s %q: not algorithm:value", field, d)
	}
	var h hash.Hash
	switch strings.ToLower(strings.ReplaceAll(algo, "-", "")) {
	case "sha1":
		h = sha1.New()
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	case "md5":
		h = md5.New()
	default:
		return fmt.Sprintf("%s %q: unsupported algorithm %q", field, d, algo)
	}
	want, err := decodeDigest(value, h.Size())
	if err != nil {
		return fmt.Sprintf("%s %q: %v", field, d, err)
	}
	h.Write(b)
	got := h.Sum(nil)
	if !bytes.Equal(got, want) {
		return fmt.Sprintf("%s %s does not match the content (%s:%s)", field, d, algo, base32.StdEncoding.EncodeToString(got))
	}
	return ""
}

// decodeDigest decodes a digest value of size bytes written in base32,
// base16 or base64 (standard or URL alphabet).
func decodeDigest(v string, size int) ([]byte, error) {
	decoders := []func(string) ([]byte, error){
		func(s string) ([]byte, error) { return base32.StdEncoding.DecodeString(strings.ToUpper(s)) },
		func(s string) ([]byte, error) {
			return base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(s))
		},
		hex.DecodeString,
		base64.StdEncoding.DecodeString,
		base64.URLEncoding.DecodeString,
		base64.RawStdEncoding.DecodeString,
		base64.RawURLEncoding.DecodeString,
	}
	for _, dec := range decoders {
		if b, err := dec(v); err == nil && len(b) == size {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not a %d-byte digest in base32, base16 or base64", size)
}
