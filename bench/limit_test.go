package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRPS(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    float64
		wantErr bool
	}{
		{
			name: "redis 7 -q output after progress lines",
			out: "ZINCRBY k 10 __rand_int__: rps=236608.0 (overall: 268263.5) avg_msec=3.256 (overall: 2.866)\r" +
				"                                          \r" +
				"ZINCRBY k 10 __rand_int__: 270270.28 requests per second, p50=2.799 msec\n",
			want: 270270.28,
		},
		{name: "older -q output without decimals", out: "ZINCRBY k 10 __rand_int__: 530000 requests per second\n", want: 530000},
		{name: "no summary", out: "Could not connect to Redis at 127.0.0.1:1: Connection refused\n", wantErr: true},
		{name: "empty", out: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRPS([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseRPS error = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("parseRPS = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLimitArgs(t *testing.T) {
	got, err := limitArgs("127.0.0.1:30050", "ns:raw:limit", 2000000)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-h", "127.0.0.1", "-p", "30050", "-c", "50", "-P", "16", "-r", "100000",
		"-n", "2000000", "-q", "ZINCRBY", "ns:raw:limit", "10", "__rand_int__"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limitArgs (-want +got):\n%s", diff)
	}
	if _, err := limitArgs("no-port", "k", 1); err == nil {
		t.Error("limitArgs accepted an address without a port")
	}
}
