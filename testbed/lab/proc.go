package lab

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// need is a file an application needs and the Debian package that installs it.
type need struct {
	Path    string
	Package string
}

// check looks for the file; a Path with a wildcard (a PHP extension under
// the PHP API version) matches any file of the pattern.
func (n need) check() error {
	if m, _ := filepath.Glob(n.Path); len(m) == 0 {
		return &MissingError{Package: n.Package, Path: n.Path}
	}
	return nil
}

func checkNeeds(ns []need) error {
	for _, n := range ns {
		if err := n.check(); err != nil {
			return err
		}
	}
	return nil
}

// serverNeeds are what every application of the lab is served with.
var serverNeeds = []need{
	{"/usr/sbin/lighttpd", "lighttpd"},
	{"/usr/bin/php-cgi", "php-cgi"},
	{"/usr/bin/php", "php-cli"},
}

// proc is a daemon the lab started, kept in the foreground as its child.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

// startProc starts a daemon in its own process group; it dies with the lab's
// process (Pdeathsig), so a killed test leaves no server behind.
func (l *Lab) startProc(name, logPath string, env []string, bin string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = append(append(os.Environ(), mallocEnv...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() {
		p.done <- cmd.Wait()
		logf.Close()
	}()
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	return p, nil
}

// stop sends SIGTERM to the daemon's process group (its FastCGI children
// too), then SIGKILL if it has not exited after 10 seconds.
func (p *proc) stop() error {
	if p.cmd.Process == nil {
		return nil
	}
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	select {
	case <-p.done:
		return fmt.Errorf("lab: %s did not stop on SIGTERM; killed", p.name)
	case <-time.After(5 * time.Second):
		return fmt.Errorf("lab: %s (pid %d) did not stop", p.name, p.cmd.Process.Pid)
	}
}

// exited reports the daemon's exit, if it has exited.
func (p *proc) exited() (bool, error) {
	select {
	case err := <-p.done:
		p.done <- err
		return true, err
	default:
		return false, nil
	}
}

// waitFor polls ready until it succeeds, the daemon exits, or timeout.
func waitFor(ctx context.Context, p *proc, timeout time.Duration, ready func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if gone, perr := p.exited(); gone {
			return fmt.Errorf("%s exited before it was ready (%v): see its log", p.name, perr)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %w", p.name, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// dialable reports whether a unix or tcp address accepts connections.
func dialable(network, addr string) func() error {
	return func() error {
		c, err := net.DialTimeout(network, addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}
