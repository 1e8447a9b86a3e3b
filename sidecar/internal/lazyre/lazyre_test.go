package lazyre

import "testing"

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`^(a+)(b?)$`)
	if !r.MatchString("aab") || r.MatchString("ba") {
		t.Fatal("MatchString")
	}
	if got := r.FindString("aa"); got != "aa" {
		t.Fatalf("FindString = %q", got)
	}
	if got := r.FindStringSubmatch("ab"); len(got) != 3 || got[1] != "a" || got[2] != "b" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
}

func TestABadExpressionPanicsWhenUsed(t *testing.T) {
	r := New(`(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Fatal("a bad expression did not panic when used")
		}
	}()
	r.MatchString("x")
}
