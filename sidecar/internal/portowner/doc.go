// Package portowner tells whether a loopback port is this user's: a port
// read from a file (VS Code's port file, a browser's DevToolsActivePort)
// may have been taken by another local user after its browser quit, and
// that user must not receive our CDP clients, nor the pages and input our
// agents send.
package portowner
