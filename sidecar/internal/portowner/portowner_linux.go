package portowner

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// The kernel's socket tables list every TCP socket of the network
// namespace with its owner's uid, and any user may read them.
var tables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// Mine checks that the socket listening on port belongs to this user.
func Mine(port int) error {
	me := os.Geteuid()
	found := false
	for _, table := range tables {
		socks, err := read(table)
		if err != nil {
			continue // no IPv6, say
		}
		for _, s := range socks {
			if !s.listening || s.local.Port() != uint16(port) {
				continue
			}
			found = true
			if s.uid != me {
				return fmt.Errorf("is listened on by uid %d, not by you (uid %d)", s.uid, me)
			}
		}
	}
	if !found {
		return fmt.Errorf("has no listening socket")
	}
	return nil
}

// Peer is the uid of the process that holds the other end of c, a TCP
// connection between two sockets of this machine: the socket whose local
// address is c's remote one and whose remote address is c's local one.
func Peer(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0, ErrUnknown
	}
	var errs []error
	for _, table := range tables {
		socks, err := read(table)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range socks {
			if same(s.local, remote.AddrPort()) && same(s.remote, local.AddrPort()) {
				return s.uid, nil
			}
		}
	}
	if len(errs) == len(tables) {
		return 0, errors.Join(errs...)
	}
	return 0, fmt.Errorf("no socket of this machine is connected from %s", remote)
}

type socket struct {
	local, remote netip.AddrPort
	listening     bool
	uid           int
}

// read parses one table: "sl local_address rem_address st tx:rx tr:when
// retrnsmt uid ...", st 0A being LISTEN.
func read(table string) ([]socket, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var socks []socket
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		l, err1 := parseAddr(fields[1])
		r, err2 := parseAddr(fields[2])
		uid, err3 := strconv.Atoi(fields[7])
		if err1 != nil || err2 != nil || err3 != nil {
			continue // the header line
		}
		socks = append(socks, socket{local: l, remote: r, listening: fields[3] == "0A", uid: uid})
	}
	return socks, sc.Err()
}

func same(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

// parseAddr reads "0100007F:1F90": the address as 32-bit words in the
// kernel's byte order (IPv4: one word, IPv6: four), then the port in hex.
func parseAddr(s string) (netip.AddrPort, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(host)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port in %q", s)
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr, uint16(p)), nil
}
