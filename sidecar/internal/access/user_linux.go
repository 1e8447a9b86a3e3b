package access

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

// PeerUID is the uid of the process that holds the other end of c, a TCP
// connection between two sockets of this machine, read from the kernel's
// socket tables (/proc/net/tcp and tcp6: any user may read them; they list
// every socket of the network namespace with its owner's uid). The other
// end is the socket whose local address is c's remote one and whose remote
// address is c's local one.
func PeerUID(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return 0, ErrUnknownPeer
	}
	want := [2]netip.AddrPort{remote.AddrPort(), local.AddrPort()}
	var errs []error
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uid, err := socketOwner(table, want)
		if err == nil {
			return uid, nil
		}
		errs = append(errs, err)
	}
	return 0, errors.Join(errs...)
}

var errNoSocket = errors.New("no such socket")

// socketOwner finds the socket with local and remote addresses want in one
// table: "sl local_address rem_address st tx:rx tr:when retrnsmt uid ...".
func socketOwner(table string, want [2]netip.AddrPort) (int, error) {
	f, err := os.Open(table)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		l, err1 := parseProcAddr(fields[1])
		r, err2 := parseProcAddr(fields[2])
		if err1 != nil || err2 != nil || !sameAddr(l, want[0]) || !sameAddr(r, want[1]) {
			continue
		}
		return strconv.Atoi(fields[7])
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: %w", table, errNoSocket)
}

func sameAddr(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

// parseProcAddr reads "0100007F:1F90": the address as 32-bit words in the
// kernel's byte order (IPv4: one word, IPv6: four), then the port in hex.
func parseProcAddr(s string) (netip.AddrPort, error) {
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
