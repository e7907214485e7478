package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/engine/worker"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/rmnp"
	rmnpgw "github.com/gridtui/gridtui/rmnp/gateway"
)

// GatewayPlan is the second line a gateway reads on stdin, once every
// gateway of the run has said where it listens: who its peers are and
// which destinations it may dial for them.
type GatewayPlan struct {
	Self  rmnp.PeerID
	Peers []rmnpgw.GatewayPeer
	Allow []string
	// NoCompress turns S2 off on the gateway links (to measure it).
	NoCompress bool
}

// GatewayUpdate is every further line a gateway reads on stdin: more
// destinations it may dial (the data addresses of its site's workers
// started since, e.g. by a recovery, each on a new port).
type GatewayUpdate struct {
	Allow []string
}

// gatewayStatsPeriod is how often a gateway prints its counters.
const gatewayStatsPeriod = 200 * time.Millisecond

// ServeGateway is `gridtui gateway`: it reads its boot (Role gateway) on
// stdin, listens on the first of its boot's addresses it can bind, prints
// its hello, reads its plan (gatewayPlan) and relays the run's inter-site
// links (rmnpgw.Gateway) until stdin closes, printing its counters
// (rmnpgw.GatewayStats, one JSON line) on stdout twice a second.
func ServeGateway(ctx context.Context, stdin io.Reader, stdout io.Writer, logw io.Writer) error {
	boot, err := deploy.ReadBoot(stdin)
	if err != nil {
		return err
	}
	if boot.Role != deploy.RoleGateway || len(boot.Listen) == 0 {
		return fmt.Errorf("engine: gateway %s: boot is not a gateway's (role %q, %d addresses)", boot.Node, boot.Role, len(boot.Listen))
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo})) // rmnp names the gateway
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var gw *rmnpgw.Gateway
	var errs []error
	for _, a := range boot.Listen {
		cfg := rmnpgw.GatewayConfig{RunID: boot.RunID, Secret: boot.Secret, Self: worker.NodeID(boot.Node), Name: boot.Node,
			Listen: []string{a}, Logger: log}
		if gw, err = rmnpgw.StartGateway(ctx, cfg); err == nil {
			break
		}
		errs = append(errs, err)
	}
	if gw == nil {
		return fmt.Errorf("engine: gateway %s: no port to listen on: %w", boot.Node, errors.Join(errs...))
	}
	defer gw.Close()
	hello := deploy.Hello{Node: boot.Node, Host: worker.Host(), PID: os.Getpid(), Version: worker.Version,
		OS: runtime.GOOS, Arch: runtime.GOARCH, Listen: gw.Addrs()}
	if err := deploy.WriteHello(stdout, hello); err != nil {
		return fmt.Errorf("engine: gateway %s: %w", boot.Node, err)
	}
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("engine: gateway %s: read its plan: %w", boot.Node, err)
	}
	var plan GatewayPlan
	if err := json.Unmarshal(line, &plan); err != nil {
		return fmt.Errorf("engine: gateway %s: plan: %w", boot.Node, err)
	}
	if err := gw.Configure(plan.Peers, plan.Allow, !plan.NoCompress); err != nil {
		return fmt.Errorf("engine: gateway %s: %w", boot.Node, err)
	}
	stdinGone := make(chan struct{})
	go func() {
		defer close(stdinGone)
		readUpdates(in, gw, log, boot.Node)
	}()
	t := time.NewTicker(gatewayStatsPeriod)
	defer t.Stop()
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(gw.Stats()); err != nil { // the console waits for it: configured
		return fmt.Errorf("engine: gateway %s: %w", boot.Node, err)
	}
	for {
		select {
		case <-stdinGone:
			log.Info("engine: stdin closed, gateway exits")
			enc.Encode(gw.Stats())
			return nil
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := enc.Encode(gw.Stats()); err != nil {
				return fmt.Errorf("engine: gateway %s: %w", boot.Node, err)
			}
		}
	}
}

// readUpdates applies the gateway's further stdin lines (GatewayUpdate)
// until stdin closes; a line it cannot read is logged and skipped.
func readUpdates(in *bufio.Reader, gw *rmnpgw.Gateway, log *slog.Logger, node string) {
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var u GatewayUpdate
			if jerr := json.Unmarshal(line, &u); jerr != nil {
				log.Warn("engine: gateway: update unreadable", "gateway", node, "err", jerr)
			} else if len(u.Allow) > 0 {
				gw.AllowMore(u.Allow)
				log.Info("engine: gateway: destinations added", "gateway", node, "allow", u.Allow)
			}
		}
		if err != nil {
			return
		}
	}
}
