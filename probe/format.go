package probe

import (
	"fmt"
	"io"
	"strings"

	"github.com/gridtui/gridtui/internal/columns"
)

// WriteNICTable writes nics as an aligned text table: name, kind, state, MTU,
// link speed ("unknown" when the kernel does not know it) and addresses.
func WriteNICTable(w io.Writer, nics []NIC) error {
	tw := columns.NewWriter(w, 2)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATE\tMTU\tSPEED\tADDRESSES")
	for _, n := range nics {
		addrs := make([]string, len(n.Addrs))
		for i, a := range n.Addrs {
			addrs[i] = a.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", n.Name, n.Kind, state(n.Up), n.MTU,
			FormatSpeed(n.SpeedMbps), dash(strings.Join(addrs, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("probe: write NIC table: %w", err)
	}
	return nil
}

func state(up bool) string {
	if up {
		return "up"
	}
	return "down"
}

// FormatSpeed renders a link speed in Mb/s for people: "unknown", "100 Mb/s",
// "10 Gb/s", "56 Gb/s".
func FormatSpeed(mbps int) string {
	switch {
	case mbps <= 0:
		return "unknown"
	case mbps >= 1000 && mbps%1000 == 0:
		return fmt.Sprintf("%d Gb/s", mbps/1000)
	case mbps >= 1000:
		return fmt.Sprintf("%.1f Gb/s", float64(mbps)/1000)
	}
	return fmt.Sprintf("%d Mb/s", mbps)
}
