package testseed

import "testing"

func TestSeedFromEnv(t *testing.T) {
	t.Setenv(Env, "12345")
	if got := Seed(t); got != 12345 {
		t.Errorf("seed %d with %s=12345", got, Env)
	}
}
