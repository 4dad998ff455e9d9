package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
)

// Domain is the parent of every lab host name. ".test" is reserved (RFC 2606),
// so a lab name can never be a real host on the internet.
const Domain = "lab.test"

// Hub is the host of the lab's links page, the entry point of its small web.
const Hub = "hub." + Domain

// MissingError says that a Debian package the lab needs is not installed.
type MissingError struct {
	Package string // the Debian package to install
	Path    string // the file that was looked for
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("lab: Debian package %s is not installed (%s not found): run testbed/lab/install.sh", e.Package, e.Path)
}

// Options tune Start.
type Options struct {
	// Apps names the applications to run (see AppNames); empty means all.
	Apps []string
	// Port is the loopback port of the web server; 0 picks a free one.
	Port int
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Lab is a running lab.
type Lab struct {
	Dir   string            // the lab's directory: data, configs, logs, truth/
	Addr  string            // 127.0.0.1:PORT, where every lab host is served
	Port  int               // the web server's port
	Hosts map[string]string // host name -> Addr, for a dialer or --resolve
	// Apps are the applications running; Missing says why the others are not
	// (application -> the missing package).
	Apps    []string
	Missing map[string]string
	Truth   *Truth
	// Timing gives the seconds each phase took: "load:<app>", "up", "truth".
	Timing map[string]float64

	mu    sync.Mutex // guards procs while applications start in parallel
	procs []*proc
	log   io.Writer
}

// lockedWriter serializes the progress lines of applications loading at once.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// AppNames lists the applications the lab knows, in start order.
func AppNames() []string {
	var names []string
	for _, a := range allApps() {
		names = append(names, a.info().Name)
	}
	return names
}

// Start loads what the lab directory does not hold yet, starts the servers
// and writes the ground truth under dir/truth. It returns a *MissingError
// when the web server or PHP is not installed, shareddata.ErrNotFound when the
// shared data is absent. Close stops everything Start started, also on error.
func Start(ctx context.Context, dir string, opts Options) (*Lab, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "log"), 0o755); err != nil {
		return nil, err
	}
	for _, n := range serverNeeds {
		if err := n.check(); err != nil {
			return nil, err
		}
	}
	data, err := shareddata.Dir()
	if err != nil {
		return nil, err
	}
	l := &Lab{Dir: dir, Hosts: map[string]string{}, Missing: map[string]string{},
		Timing: map[string]float64{}, log: io.Discard}
	if opts.Log != nil {
		l.log = &lockedWriter{w: opts.Log}
	}
	if l.Port, err = labPort(dir, opts.Port); err != nil {
		return nil, err
	}
	l.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(l.Port))
	e := &env{lab: l, dir: dir, data: data}
	ok := false
	defer func() {
		if !ok {
			l.Close()
		}
	}()

	var apps []app
	for _, a := range allApps() {
		in := a.info()
		if len(opts.Apps) > 0 && !slices.Contains(opts.Apps, in.Name) {
			// said in Missing too, so that tests over every application skip it
			l.Missing[in.Name] = "not among the applications asked for (" + strings.Join(opts.Apps, ",") + ")"
			continue
		}
		if err := checkNeeds(in.Needs); err != nil {
			var me *MissingError
			if errors.As(err, &me) {
				l.Missing[in.Name] = me.Error()
				fmt.Fprintf(l.log, "lab: %s left out: %v\n", in.Name, me)
				continue
			}
			return nil, err
		}
		apps = append(apps, a)
	}
	// The applications load in parallel: each waits on its own tools.
	type loaded struct {
		recs []Record
		secs float64
		err  error
	}
	results := make([]loaded, len(apps))
	var wg sync.WaitGroup
	for i, a := range apps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := a.info()
			t0 := time.Now()
			if err := a.start(ctx, e); err != nil {
				results[i].err = fmt.Errorf("lab: start %s: %w", in.Name, err)
				return
			}
			recs, err := loadOnce(ctx, e, a)
			if err != nil {
				results[i].err = fmt.Errorf("lab: load %s: %w", in.Name, err)
				return
			}
			results[i] = loaded{recs: recs, secs: time.Since(t0).Seconds()}
		}()
	}
	wg.Wait()
	records := map[string][]Record{}
	for i, a := range apps {
		if results[i].err != nil {
			return nil, results[i].err
		}
		for _, r := range results[i].recs {
			records[r.Backend] = append(records[r.Backend], r)
		}
		in := a.info()
		l.Timing["load:"+in.Name] = results[i].secs
		l.Apps = append(l.Apps, in.Name)
		l.Hosts[in.Host] = l.Addr
	}
	t0 := time.Now()
	statics, err := writeStatics(e, apps)
	if err != nil {
		return nil, fmt.Errorf("lab: static sites: %w", err)
	}
	for _, s := range statics {
		l.Hosts[s.host] = l.Addr
	}
	if err := l.serve(ctx, e, apps, statics); err != nil {
		return nil, err
	}
	l.Timing["up"] = time.Since(t0).Seconds()
	t0 = time.Now()
	if l.Truth, err = buildTruth(ctx, l, apps, statics, records); err != nil {
		return nil, fmt.Errorf("lab: truth: %w", err)
	}
	if err := linkSearchPages(e, apps, statics, l.Truth); err != nil {
		return nil, err
	}
	if err := l.Truth.write(filepath.Join(dir, "truth")); err != nil {
		return nil, err
	}
	l.Timing["truth"] = time.Since(t0).Seconds()
	ok = true
	return l, nil
}

// Close stops every process the lab started, the last started first.
func (l *Lab) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for i := len(l.procs) - 1; i >= 0; i-- {
		if err := l.procs[i].stop(); err != nil {
			errs = append(errs, err)
		}
	}
	l.procs = nil
	return errors.Join(errs...)
}

// URL is the http URL of path on a lab host.
func (l *Lab) URL(host, path string) string {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return "http://" + host + ":" + strconv.Itoa(l.Port) + path
}

// Resolve gives the curl-style --resolve entries (HOST:PORT:127.0.0.1) of
// every lab host.
func (l *Lab) Resolve() []string {
	var out []string
	for h := range l.Hosts {
		out = append(out, fmt.Sprintf("%s:%d:127.0.0.1", h, l.Port))
	}
	slices.Sort(out)
	return out
}

// Client is an HTTP client that dials every lab host name to the lab's
// loopback address and refuses every other name: plain net/http, real
// requests, with the Host header the virtual hosts dispatch on.
func (l *Lab) Client() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			to, ok := l.Hosts[host]
			if !ok || port != strconv.Itoa(l.Port) {
				return nil, fmt.Errorf("lab client: %s is not a lab host", addr)
			}
			return d.DialContext(ctx, network, to)
		},
		MaxIdleConnsPerHost: 4,
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// env is what the applications' load and config steps share.
type env struct {
	lab  *Lab
	dir  string // the lab directory
	data string // the shared data folder
}

func (e *env) path(elem ...string) string {
	return filepath.Join(append([]string{e.dir}, elem...)...)
}

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.lab.log, "lab: "+format+"\n", args...)
}

// run runs a command to completion (under eatmydata when it is installed:
// the lab's databases are scratch data, and fsync on a slow disk dominated
// the load time), with its output in the lab's log directory on failure.
func (e *env) run(ctx context.Context, dir string, extraEnv []string, name string, args ...string) ([]byte, error) {
	if p, err := lookEatmydata(); err == nil {
		args = append([]string{name}, args...)
		name = p
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), mallocEnv...), extraEnv...)
	var out, stderr strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return []byte(out.String()), nil
}

// loadOnce loads an application unless its directory says it is loaded, and
// returns its records either way.
func loadOnce(ctx context.Context, e *env, a app) ([]Record, error) {
	in := a.info()
	marker := e.path(in.Name, "records.json")
	if b, err := os.ReadFile(marker); err == nil {
		var recs []Record
		if err := json.Unmarshal(b, &recs); err != nil {
			return nil, fmt.Errorf("%s: %w (remove the lab directory to reload)", marker, err)
		}
		e.logf("%s: %d records already loaded", in.Name, len(recs))
		return recs, nil
	}
	if err := os.RemoveAll(e.path(in.Name)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(e.path(in.Name), 0o755); err != nil {
		return nil, err
	}
	t0 := time.Now()
	recs, err := a.load(ctx, e)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(recs, "", " ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(marker, b, 0o644); err != nil {
		return nil, err
	}
	e.logf("%s: loaded %d records in %.1fs", in.Name, len(recs), time.Since(t0).Seconds())
	return recs, nil
}

// labPort is the port of the lab directory: the pages loaded link to the
// other lab sites with it, so a directory keeps the port it was loaded with
// (in DIR/port) unless told otherwise.
func labPort(dir string, want int) (int, error) {
	file := filepath.Join(dir, "port")
	if want == 0 {
		if b, err := os.ReadFile(file); err == nil {
			if want, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				return 0, fmt.Errorf("%s: %w", file, err)
			}
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(want)))
			if err != nil {
				return 0, fmt.Errorf("lab: port %d of %s is busy (is this lab already up?): %w", want, dir, err)
			}
			ln.Close()
			return want, nil
		}
	}
	if want == 0 {
		var err error
		if want, err = freePort(); err != nil {
			return 0, err
		}
	}
	return want, os.WriteFile(file, []byte(strconv.Itoa(want)+"\n"), 0o644)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func lookEatmydata() (string, error) { return exec.LookPath("eatmydata") }

// mallocEnv keeps glibc's malloc from returning memory to the system after
// every free: where system calls are slow (a sandboxed kernel), git
// fast-import spent 46 of its 47 seconds in brk without it.
var mallocEnv = []string{"MALLOC_TOP_PAD_=67108864", "MALLOC_TRIM_THRESHOLD_=134217728"}
