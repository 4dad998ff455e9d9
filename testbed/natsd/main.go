// Command natsd runs a NATS server with JetStream (nats-server v2, embedded)
// on loopback, alone or as one node of a cluster: the server the cluster
// scripts, tests and benchmarks of dwcrawl's distributed mode run against
// (testbed/cluster/run3.sh). Any nats-server 2.10 or later with JetStream
// enabled serves as well.
//
//	go run ./testbed/natsd --addr 127.0.0.1:4222 --js /tmp/js1
//	go run ./testbed/natsd --addr 127.0.0.1:4222 --js /tmp/js1 --name n1 \
//	    --cluster 127.0.0.1:6222 --routes nats://127.0.0.1:6223,nats://127.0.0.1:6224
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4222", "client `host:port`")
	js := flag.String("js", "", "JetStream storage `DIR` (required)")
	name := flag.String("name", "", "server name (required in a cluster)")
	cluster := flag.String("cluster", "", "cluster route `host:port` (a cluster node)")
	routes := flag.String("routes", "", "`URLs` of the other nodes' routes, comma-separated")
	clusterName := flag.String("cluster-name", "dwcrawl", "cluster name")
	debug := flag.Bool("debug", false, "log the server's debug messages")
	flag.Parse()
	if err := run(*addr, *js, *name, *cluster, *routes, *clusterName, *debug); err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
}

func hostPort(s string) (string, int, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	return h, n, err
}

func run(addr, js, name, cluster, routes, clusterName string, debug bool) error {
	if js == "" {
		return errors.New("give --js DIR")
	}
	host, port, err := hostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	opts := &server.Options{Host: host, Port: port, JetStream: true, StoreDir: js, ServerName: name, Debug: debug, NoSigs: true}
	if cluster != "" {
		if name == "" {
			return errors.New("a cluster node needs --name")
		}
		ch, cp, err := hostPort(cluster)
		if err != nil {
			return fmt.Errorf("--cluster: %w", err)
		}
		opts.Cluster = server.ClusterOpts{Name: clusterName, Host: ch, Port: cp}
		if routes != "" {
			opts.Routes = server.RoutesFromStr(routes)
		}
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return err
	}
	s.ConfigureLogger()
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		return errors.New("the server did not start")
	}
	fmt.Fprintf(os.Stderr, "natsd: %s serving nats://%s (JetStream in %s)\n", name, addr, js)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Shutdown()
	s.WaitForShutdown()
	return nil
}
