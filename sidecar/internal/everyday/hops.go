package everyday

// hopPoint is where hop marks a CDP message in the Conn (hops_on.go records
// them in a binary built with -tags hoptrace; hops_off.go drops them).
type hopPoint int

const (
	hopCommandIn  hopPoint = iota // a client's command reached Conn.WriteMessage
	hopChannelOut                 // its request is written to the extension's channel
	hopChannelIn                  // a message came on the channel
	hopMessageOut                 // Conn.ReadMessage hands an answer or event to the proxy
	hopPoints
)
