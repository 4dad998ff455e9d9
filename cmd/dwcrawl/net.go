package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/internal/app"
)

// multi is a repeatable string flag that, unlike cli.StringSliceFlag, never
// splits a value at commas (a header value may hold them).
type multi struct{ vals []string }

func (m *multi) Set(v string) error { m.vals = append(m.vals, v); return nil }
func (m *multi) String() string     { return strings.Join(m.vals, " ") }

// Get returns the values (cli.Context.Generic hands back the *multi).
func (m *multi) Get() any { return m.vals }

// netFlags are the network flags of every command that fetches.
func netFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "allow-private", Usage: "let the fetcher reach loopback, private and link-local addresses (refused by default; " +
			"local servers and the lab need it)"},
		&cli.GenericFlag{Name: "resolve", Value: &multi{}, Usage: "`HOST:PORT:ADDR`: connect to ADDR for HOST:PORT, as curl --resolve does " +
			"(repeatable); the address policy judges ADDR, so a loopback ADDR needs --allow-private"},
		&cli.StringFlag{Name: "proxy", Usage: "proxy `URL`: http://, https://, socks5:// or socks5h:// (Tor: socks5h://127.0.0.1:9050); " +
			"default: HTTP_PROXY, HTTPS_PROXY and NO_PROXY; \"direct\" for none. The address policy is applied to each target before it is sent"},
		&cli.GenericFlag{Name: "header", Value: &multi{}, Usage: "extra request header `\"Name: value\"` sent to the crawled sites (repeatable; " +
			"User-Agent replaces the profile's)"},
		&cli.BoolFlag{Name: "polite-per-ip", Usage: "keep the politeness delay per IP address as well as per host, so host names on one " +
			"server are paced as one (default per host only: a CDN puts unrelated sites on one address; profile: politeness.per_ip)"},
	}
}

// netOptions reads netFlags.
func netOptions(c *cli.Context) app.NetOptions {
	return app.NetOptions{
		AllowPrivate: c.Bool("allow-private"),
		Resolve:      multiValues(c, "resolve"),
		Proxy:        c.String("proxy"),
		Headers:      multiValues(c, "header"),
		PolitePerIP:  c.Bool("polite-per-ip"),
	}
}

// multiValues takes the values of a multi flag. They are taken, not
// copied: the flag object lives as long as its command, and an App run
// again in the same process (the tests) must start without them.
func multiValues(c *cli.Context, name string) []string {
	if m, ok := c.Generic(name).(*multi); ok && m != nil {
		vals := m.vals
		m.vals = nil
		return vals
	}
	return nil
}
