package oar

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
)

// Name is OAR's launcher name in sites.toml.
const Name = "oar"

func init() { sched.RegisterScheduler(Name, oar{}) }

// oar is OAR, Grid'5000's scheduler: oarsub, oarstat, oardel, and oarsh to
// start a command on a node of a job (from the frontend with OAR_JOB_ID
// set, or from inside the job). oarsub has no command that holds an
// allocation while its stdin is open (salloc's), so the allocation command
// is a small script on the frontend: it submits a job that sleeps out its
// walltime, waits until OAR runs it, prints AllocLine with the job's hosts,
// holds until its stdin closes and then deletes the job.
type oar struct{}

func (oar) Name() string    { return "OAR" }
func (oar) Starter() string { return "oarsh" }

// Inside reads $OAR_JOB_ID and $OAR_NODEFILE (or their older names
// OAR_JOBID and OAR_FILE_NODES): one line per core of the job.
func (oar) Inside(getenv func(string) string) (sched.Allocation, bool, error) {
	return sched.InsideNodeFile(getenv, []string{"OAR_JOB_ID", "OAR_JOBID"}, []string{"OAR_NODEFILE", "OAR_FILE_NODES"}, sched.NodeFilePerSlot)
}

// oarJobName names the jobs gridtui submits (RunningCommand finds them).
const oarJobName = "gridtui"

func (oar) AllocCommand(nodes string, cores int, opt sched.BatchOptions) string {
	names, err := sched.ExpandNodeSet(nodes)
	if err != nil {
		names = strings.Split(nodes, ",")
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
	}
	prop := "network_address IN (" + strings.Join(quoted, ",") + ")"
	if opt.Properties != "" {
		prop = "(" + opt.Properties + ") AND " + prop
	}
	res := "nodes=" + strconv.Itoa(len(names))
	if cores > 0 {
		res += "/core=" + strconv.Itoa(cores)
	}
	if opt.TimeLimit > 0 {
		res += ",walltime=" + oarWalltime(opt.TimeLimit)
	}
	args := []string{"oarsub", "-n", oarJobName, "-l", sched.Quote(res), "-p", sched.Quote(prop)}
	if opt.Partition != "" {
		args = append(args, "-q", sched.Quote(opt.Partition))
	}
	if opt.Account != "" {
		args = append(args, "--project", sched.Quote(opt.Account))
	}
	for _, o := range opt.Options {
		args = append(args, sched.Quote(o))
	}
	args = append(args, sched.Quote("sleep 2147483647"))
	// oarstat -s prints "ID: State"; -f's assigned_hostnames are joined by
	// '+'. The job is deleted when the console closes stdin (release also
	// runs oardel, in case this script was killed).
	script := `out=$(` + strings.Join(args, " ") + ` 2>&1); st=$?; printf '%s\n' "$out" >&2
id=$(printf '%s\n' "$out" | sed -n 's/^OAR_JOB_ID= *//p')
[ $st -eq 0 ] && [ -n "$id" ] || exit 1
trap 'oardel "$id" >/dev/null 2>&1' EXIT
while :; do
  s=$(oarstat -s -j "$id" | sed -n 's/^[0-9]*: *//p')
  case "$s" in Running) break ;; Error|Terminated|"") echo "OAR job $id is $s" >&2; exit 1 ;; esac
  sleep 1
done
echo ` + sched.AllocLine + ` "$id" "$(oarstat -f -j "$id" | sed -n 's/^ *assigned_hostnames = //p' | tr + ,)"
cat >/dev/null`
	return "sh -c " + sched.Quote(script)
}

// oarWalltime writes d as OAR's walltime, hours:minutes:seconds.
func oarWalltime(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

var oarJobRE = regexp.MustCompile(`OAR_JOB_ID= *(\d+)`)

func (oar) JobID(line string) string {
	if m := oarJobRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

func (oar) StatusCommand(id string) string {
	return "oarstat -f -j " + id + "; echo --; oarstat"
}

// oarstatRE matches a job's line of oarstat's table: "ID S USER …", S being
// W for a waiting job.
var oarstatRE = regexp.MustCompile(`^(\d+)\s+([A-Za-z])\s`)

// StatusOf parses `oarstat -f -j ID` (its state, queue and message lines),
// "--", then oarstat's table of the unfinished jobs in submission order,
// for the job's place among the waiting ones.
func (oar) StatusOf(id string, out []byte) (sched.Pending, error) {
	mine, all, _ := strings.Cut(string(out), "\n--\n")
	p := sched.Pending{Job: id}
	for _, l := range strings.Split(mine, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), " = ")
		switch {
		case !ok:
		case k == "state":
			p.State = v
		case k == "message":
			p.Reason = strings.TrimSpace(v)
		}
	}
	if p.State == "" {
		return sched.Pending{}, fmt.Errorf("oarstat says nothing about job %s", id)
	}
	pos := 0
	for _, l := range strings.Split(all, "\n") {
		m := oarstatRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || m[2] != "W" {
			continue
		}
		pos++
		if m[1] == id && p.State == "Waiting" {
			p.Position = pos
		}
	}
	return p, nil
}

// StepCommand runs cmd on node with oarsh, which reaches a node of the job
// from the frontend when OAR_JOB_ID names it.
func (oar) StepCommand(id, node, cmd string) string {
	pre := ""
	if id != "" {
		pre = "OAR_JOB_ID=" + id + " "
	}
	return pre + "oarsh " + sched.Quote(node) + " " + sched.Quote(cmd)
}

func (oar) CancelCommand(id string) string { return "oardel " + id }

func (oar) RunningCommand() string {
	return `j=$(oarstat -u "$(id -un)" -f 2>/dev/null | awk '/^Job_Id:/{id=$2} /^ *name = ` + oarJobName +
		`$/{n[id]=1} /^ *state = /{s[id]=$3} END{for(i in n) if(s[i]!="Terminated"&&s[i]!="Error") print i}'); if [ -n "$j" ]; then echo $j; exit 0; fi`
}
