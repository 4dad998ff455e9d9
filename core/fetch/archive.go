package fetch

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/warc"
)

// Archiver keeps the HTTP exchanges the fetcher makes (warc.Writer
// implements it). Record is called once per round trip that got a
// response, from the fetching goroutine; it must be safe for concurrent use.
type Archiver interface {
	Record(ctx context.Context, ex warc.Exchange) error
}

// ArchiveErrors counts the exchanges the Archiver failed to record.
func (f *Fetcher) ArchiveErrors() int64 { return f.archiveErrs.Load() }

// traceRemote makes r report the address of the connection it is sent on
// into *ip (the WARC-IP-Address of its exchange).
func traceRemote(r *http.Request, ip *string) *http.Request {
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if a, ok := info.Conn.RemoteAddr().(*net.TCPAddr); ok {
			*ip = a.IP.String()
		}
	}}
	return r.WithContext(httptrace.WithClientTrace(r.Context(), trace))
}

// requestBody returns the bytes of r's body for the archive, from GetBody
// so that r's own body is left for the transport.
func requestBody(r *http.Request) []byte {
	if r.GetBody == nil || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	rc, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 16<<20))
	return b
}

// archive gives one exchange to the Archiver; a failure is logged and
// counted.
func (f *Fetcher) archive(ctx context.Context, r *http.Request, hr *http.Response, body []byte, truncated bool, remote string, sent time.Time) {
	reqHeader := r.Header.Clone()
	if reqHeader == nil {
		reqHeader = http.Header{}
	}
	if r.Host != "" && r.Host != r.URL.Host {
		reqHeader.Set("Host", r.Host)
	}
	ex := warc.Exchange{
		Method: r.Method, URL: r.URL.String(), RequestHeader: reqHeader, RequestBody: requestBody(r),
		Status: hr.StatusCode, ResponseHeader: hr.Header, ResponseBody: body, Truncated: truncated,
		RemoteIP: remote, Time: sent,
	}
	if hr.ProtoMajor == 1 && hr.ProtoMinor == 0 {
		ex.Proto = "HTTP/1.0"
	}
	if err := f.opt.Archiver.Record(context.WithoutCancel(ctx), ex); err != nil {
		if f.archiveErrs.Add(1) == 1 {
			f.opt.Logger.Warn("archiving failed (further failures are counted, not logged)", "url", canon.Redacted(ex.URL), "err", err)
		} else {
			f.opt.Logger.Debug("archiving failed", "url", canon.Redacted(ex.URL), "err", err)
		}
	}
}
