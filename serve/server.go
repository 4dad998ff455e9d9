package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Server.
type Options struct {
	// Root holds one directory per job, named by the job's id.
	Root string
	// Token, when set, must come with every request that changes something
	// ("Authorization: Bearer TOKEN").
	Token string
	// Loopback says the server listens on loopback only. A server that
	// listens beyond loopback must have a Token.
	Loopback bool
	// Allow lists the directories whose files requests may name: profiles,
	// keyword plugins, local tables and samples. Root is always allowed.
	Allow []string
	// Runner assembles the jobs.
	Runner Runner
	// Resume restarts the jobs that were running when the server stopped.
	Resume bool
	// IdleClose is how long a store nobody uses stays open (default 30s).
	IdleClose time.Duration
	Logger    *slog.Logger
}

// ErrNoToken is returned by New for a server reachable beyond loopback
// without a token.
var ErrNoToken = errors.New("a server listening beyond loopback needs a token")

// Server runs jobs and serves the API, the dashboard and the metrics.
type Server struct {
	opt    Options
	log    *slog.Logger
	allow  []string // cleaned absolute directories
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex
	jobs map[string]*job
	refs map[string]*dbRef // by directory

	metrics *metrics
	reg     *prometheus.Registry
	mux     *http.ServeMux
}

// New opens the root directory, loads the jobs found there and, with
// Options.Resume, restarts those that were running.
func New(opt Options) (*Server, error) {
	if !opt.Loopback && opt.Token == "" {
		return nil, ErrNoToken
	}
	if opt.Runner == nil {
		return nil, errors.New("serve: no runner")
	}
	if opt.Root == "" {
		return nil, errors.New("serve: no root directory")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.IdleClose <= 0 {
		opt.IdleClose = 30 * time.Second
	}
	if err := os.MkdirAll(opt.Root, 0o755); err != nil {
		return nil, fmt.Errorf("serve: root: %w", err)
	}
	s := &Server{opt: opt, log: opt.Logger, jobs: map[string]*job{}, refs: map[string]*dbRef{}}
	for _, d := range append([]string{opt.Root}, opt.Allow...) {
		abs, err := realDir(d)
		if err != nil {
			return nil, fmt.Errorf("serve: allowed directory %s: %w", d, err)
		}
		s.allow = append(s.allow, abs)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.reg = prometheus.NewRegistry()
	s.metrics = newMetrics(s)
	if err := s.metrics.register(s.reg); err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	s.mux = s.routes()
	if opt.Resume {
		for _, j := range s.list("") {
			if j.wasInterrupted() {
				if err := j.start(); err != nil {
					s.log.Warn("resume", "job", j.id, "err", err)
				}
			}
		}
	}
	return s, nil
}

// Handler returns the server's HTTP handler. A loopback server without a
// token answers only requests addressed to a loopback name: a web page
// could otherwise rebind its own host name to 127.0.0.1 and, being
// same-origin with itself, read and drive the API from the user's browser.
func (s *Server) Handler() http.Handler {
	if !s.opt.Loopback || s.opt.Token != "" {
		return s.mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			writeJSON(w, http.StatusMisdirectedRequest, map[string]string{"error": fmt.Sprintf(
				"host %q refused: this server listens on loopback without a token and answers only localhost, 127.0.0.1 or [::1]", r.Host)})
			return
		}
		s.mux.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names loopback: localhost
// (or a name under .localhost) or a loopback IP, with or without a port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close stops every running job (they are marked interrupted, so a server
// started with Options.Resume continues them) and closes the stores.
func (s *Server) Close(ctx context.Context) error {
	s.cancel()
	var errs []error
	for _, j := range s.list("") {
		if err := j.wait(ctx); err != nil {
			errs = append(errs, fmt.Errorf("job %s: %w", j.id, err))
		}
	}
	s.mu.Lock()
	refs := make([]*dbRef, 0, len(s.refs))
	for _, r := range s.refs {
		refs = append(refs, r)
	}
	s.mu.Unlock()
	for _, r := range refs {
		errs = append(errs, r.shutdown())
	}
	return errors.Join(errs...)
}

// load reads every job directory under the root.
func (s *Server) load() error {
	ents, err := os.ReadDir(s.opt.Root)
	if err != nil {
		return fmt.Errorf("serve: root: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.opt.Root, e.Name())
		rec, err := readRecord(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue // not a job directory (a crawl run by hand, say)
		}
		if err != nil {
			s.log.Warn("serve: skipping a job directory", "dir", dir, "err", err)
			continue
		}
		j, err := s.restoreJob(dir, rec)
		if err != nil {
			s.log.Warn("serve: skipping a job directory", "dir", dir, "err", err)
			continue
		}
		s.jobs[j.id] = j
	}
	return nil
}

// ref returns the shared store handle of dir.
func (s *Server) ref(dir string) *dbRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.refs[dir]
	if r == nil {
		r = &dbRef{dir: dir, idle: s.opt.IdleClose, log: s.log}
		s.refs[dir] = r
	}
	return r
}

// list returns the jobs of a kind ("" for all) by creation time.
func (s *Server) list(kind string) []*job {
	s.mu.Lock()
	out := make([]*job, 0, len(s.jobs))
	for _, j := range s.jobs {
		if j != nil && (kind == "" || j.kind == kind) {
			out = append(out, j)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(a, b int) bool {
		ca, cb := out[a].created(), out[b].created()
		if !ca.Equal(cb) {
			return ca.Before(cb)
		}
		return out[a].id < out[b].id
	})
	return out
}

func (s *Server) get(kind, id string) (*job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	return j, j != nil && j.kind == kind
}

// newID reserves the next free id "<prefix>-<n>" and creates its directory.
func (s *Server) newID(prefix string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := 1; ; n++ {
		id := fmt.Sprintf("%s-%d", prefix, n)
		if _, taken := s.jobs[id]; taken {
			continue
		}
		dir := filepath.Join(s.opt.Root, id)
		if err := os.Mkdir(dir, 0o755); errors.Is(err, os.ErrExist) {
			continue
		} else if err != nil {
			return "", "", fmt.Errorf("job directory: %w", err)
		}
		s.jobs[id] = nil // reserved until added
		return id, dir, nil
	}
}

func (s *Server) add(j *job) {
	s.mu.Lock()
	s.jobs[j.id] = j
	s.mu.Unlock()
}

func (s *Server) unreserve(id, dir string) {
	s.mu.Lock()
	delete(s.jobs, id)
	s.mu.Unlock()
	os.RemoveAll(dir)
}

// allowedFile resolves a path a request names and checks that it lies in an
// allowed directory (symbolic links resolved).
func (s *Server) allowedFile(field, path string) (string, error) {
	if path == "" {
		return "", badRequest("%s: empty path", field)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", badRequest("%s: %v", field, err)
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return "", badRequest("%s: %v", field, err)
	}
	for _, d := range s.allow {
		if rel, err := filepath.Rel(d, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return abs, nil
		}
	}
	return "", &apiError{http.StatusForbidden, fmt.Sprintf("%s: %s is outside the directories this server allows (%s)", field, path, strings.Join(s.allow, ", "))}
}

func realDir(d string) (string, error) {
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// --- HTTP plumbing

// apiError is an error with its HTTP status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

func notFound(kind, id string) error {
	return &apiError{http.StatusNotFound, fmt.Sprintf("no %s job %q", kind, id)}
}

func conflict(format string, a ...any) error {
	return &apiError{http.StatusConflict, fmt.Sprintf(format, a...)}
}

// writeJSON writes v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// writeError writes {"error": msg} with the error's status (500 unless it
// is an apiError).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	var ae *apiError
	if errors.As(err, &ae) {
		status = ae.status
	} else {
		s.log.Error("serve: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// handle adapts a handler that returns an error.
func (s *Server) handle(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// mutating guards a handler that changes something: same-origin requests
// only, and the token when the server has one.
func (s *Server) mutating(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if o := r.Header.Get("Origin"); o != "" {
			if u, err := url.Parse(o); err != nil || u.Host != r.Host {
				return &apiError{http.StatusForbidden, "cross-origin request refused"}
			}
		}
		if s.opt.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="dwcrawl"`)
				return &apiError{http.StatusUnauthorized, "this server needs its token: Authorization: Bearer TOKEN"}
			}
		}
		return fn(w, r)
	})
}

// maxBody bounds a request body (an inline profile or table included).
const maxBody = 8 << 20

// decode reads a JSON request body into v; unknown fields and trailing
// data are errors. An empty body leaves v as it is when optional.
func decode(r *http.Request, v any, optional bool) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return badRequest("request body: %v", err)
	}
	if len(body) > maxBody {
		return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBody)}
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		if optional {
			return nil
		}
		return badRequest("request body: empty; want a JSON object")
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return &apiError{http.StatusUnsupportedMediaType, fmt.Sprintf("request body: Content-Type %q, want application/json", ct)}
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return badRequest("request body: invalid JSON at byte %d: %v", se.Offset, err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return badRequest("request body: invalid JSON: it ends before the value is complete")
		case errors.As(err, &te):
			return badRequest("request body: field %q: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return badRequest("request body: %v", err)
	}
	if dec.More() {
		return badRequest("request body: more than one JSON value")
	}
	return nil
}
