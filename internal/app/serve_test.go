package app

import "testing"

func TestIsLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8700", true},
		{"127.1.2.3:0", true},
		{"[::1]:8700", true},
		{"localhost:8700", true},
		{"0.0.0.0:8700", false},
		{":8700", false},
		{"[::]:8700", false},
		{"192.168.1.10:8700", false},
		{"example.org:8700", false},
		{"127.0.0.1", false}, // no port: not an address Serve can bind
	} {
		if got := IsLoopback(tc.addr); got != tc.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
