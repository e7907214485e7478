package inventory

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const gatewaySites = `[[site]]
name = "west"
[[site.cluster]]
name = "alpha"
hosts = "198.18.64.[11-12]"
[[site.gateway]]
host = "198.18.64.11"
address = "198.20.0.1"
ports = [7400, 7401]

[[site]]
name = "east"
[[site.cluster]]
name = "beta"
hosts = "198.18.34.[11-12]"
[[site.gateway]]
host = "198.18.34.11"
address = "gw.east.example.org"
`

func TestParseGateways(t *testing.T) {
	inv, err := Parse("sites.toml", []byte(gatewaySites))
	if err != nil {
		t.Fatal(err)
	}
	w, e := inv.Sites[0].Gateways, inv.Sites[1].Gateways
	if len(w) != 1 || w[0].Host != "198.18.64.11" || w[0].Address != "198.20.0.1" || !slices.Equal(w[0].Ports, []int{7400, 7401}) {
		t.Errorf("west gateways: %+v", w)
	}
	if len(e) != 1 || e[0].Address != "gw.east.example.org" || !slices.Equal(e[0].Ports, []int{DefaultGatewayPort}) {
		t.Errorf("east gateways: %+v", e)
	}
	if s := inv.SiteOf("198.18.34.12"); s == nil || s.Name != "east" {
		t.Errorf("SiteOf: %+v", s)
	}
}

func TestParseBadGateways(t *testing.T) {
	tests := map[string]struct {
		from, to  string
		line, col int
		key, msg  string
	}{
		"host of another site": {`host = "198.18.34.11"`, `host = "198.18.64.12"`, 17, 1, "site[1].gateway[0].host", `gateway host "198.18.64.12" is not a host of site "east"`},
		"no host":              {`host = "198.18.34.11"`, ``, 16, 3, "site[1].gateway[0]", `gateway has no host`},
		"bad address":          {`address = "gw.east.example.org"`, `address = "gw east"`, 18, 1, "site[1].gateway[0].address", `not an IP address or host name`},
		"bad port":             {`ports = [7400, 7401]`, `ports = [7400, 70000]`, 9, 1, "site[0].gateway[0].ports", `ports[1] = 70000 is not between 1 and 65535`},
		"port twice":           {`ports = [7400, 7401]`, `ports = [7400, 7400]`, 9, 1, "site[0].gateway[0].ports", `port 7400 listed twice`},
		"unknown key":          {`ports = [7400, 7401]`, `port = 7400`, 9, 1, "site[0].gateway[0].port", `unknown key`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			data := strings.Replace(gatewaySites, tt.from, tt.to, 1)
			_, err := Parse("sites.toml", []byte(data))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *ConfigError", err)
			}
			if ce.Line != tt.line || ce.Col != tt.col || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got %d:%d %q %q, want %d:%d %q containing %q", ce.Line, ce.Col, ce.Key, ce.Msg, tt.line, tt.col, tt.key, tt.msg)
			}
		})
	}
}
