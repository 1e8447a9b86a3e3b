package portowner

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Mine checks, from /proc/net/tcp and tcp6, that the socket listening on
// port belongs to this user.
func Mine(port int) error {
	me := os.Geteuid()
	found := false
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uids, err := listenerUIDs(table, port)
		if err != nil {
			continue // no IPv6, say
		}
		for _, uid := range uids {
			found = true
			if uid != me {
				return fmt.Errorf("is listened on by uid %d, not by you (uid %d)", uid, me)
			}
		}
	}
	if !found {
		return fmt.Errorf("has no listening socket")
	}
	return nil
}

// listenerUIDs reads the owners of the sockets in LISTEN state (st 0A) on
// port from one /proc/net table: "sl local_address rem_address st ... uid".
func listenerUIDs(table string, port int) ([]int, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	suffix := fmt.Sprintf(":%04X", port)
	var uids []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[3] != "0A" || !strings.HasSuffix(fields[1], suffix) {
			continue
		}
		if uid, err := strconv.Atoi(fields[7]); err == nil {
			uids = append(uids, uid)
		}
	}
	return uids, sc.Err()
}
