#!/usr/bin/env bash
# netgrid.sh — gridtui's multi-host test grid on one Linux machine (root only).
#
#   scripts/netgrid.sh up [-a 3] [-b 3] [-wan 100mbit]   build a grid and keep it up until Ctrl-C
#   scripts/netgrid.sh clean                            remove grids left by killed runs
#   scripts/netgrid.sh status                           list the grids' namespaces and users
#   scripts/netgrid.sh test [go test flags]             run the e2e suite (go test -tags e2e ./e2e/)
#
# Every host is a network namespace with eth0 on a shared Ethernet bridge
# (198.18.64.x cluster alpha, 198.18.34.x cluster beta) and ib0 on its
# cluster's fast bridge (198.19.64.x / 198.19.34.x), an OpenSSH sshd and a
# user of its own. These RFC 2544 addresses exist only inside the namespaces:
# the root namespace gets no address, route or interface. gridtui itself must
# run in the console namespace; `up` prints the exact commands.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"

if [ "$(uname -s)" != Linux ]; then
  echo "netgrid: needs Linux network namespaces (this is $(uname -s))" >&2; exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "netgrid: needs root to create namespaces and users (run with sudo)" >&2; exit 1
fi
missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ip >/dev/null && command -v tc >/dev/null || missing+=(iproute2)
if [ ${#missing[@]} -gt 0 ]; then
  echo "netgrid: missing ${missing[*]}: apt-get install -y ${missing[*]}" >&2; exit 1
fi

cmd="${1:-}"; shift || true
case "$cmd" in
  up|clean|status)
    exec go run -tags e2e ./e2e/netgrid "$cmd" "$@" ;;
  test)
    exec go test -tags e2e -count=1 -timeout 20m "$@" ./e2e/ ;;
  *)
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
