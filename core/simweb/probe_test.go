package simweb
import ("testing";"time")
func TestProbeCompose(t *testing.T){
	cfg:=DefaultConfig(); cfg.Data="/work/shared/data"; cfg.Sites=400
	w:=MustNew(cfg)
	st:=time.Now()
	n:=0
	w.eachSite(func(s *site) error { for pid:=range s.pages { w.compose(s,int32(pid),false); n++ }; return nil })
	t.Log(n, time.Since(st), time.Since(st)/time.Duration(n))
}
