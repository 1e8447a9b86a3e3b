// Package portowner tells which local user holds a loopback socket, from
// the kernel's socket tables (Linux):
//
//   - Mine: a port read from a file (VS Code's port file, a browser's
//     DevToolsActivePort) may have been taken by another local user after
//     its browser quit, and that user must not receive our CDP clients, nor
//     the pages and input our agents send.
//   - Peer: a connection to one of our ports may come from another local
//     user's program, which must get nothing (access.OwnUser).
package portowner

import "errors"

// ErrUnknown: the system does not say who holds a socket.
var ErrUnknown = errors.New("the system does not say who holds the other end of a connection")
