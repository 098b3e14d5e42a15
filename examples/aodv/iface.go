package aodv

// NodeID is a node's address. RFC 3561 uses IPv4 addresses; one byte is enough for the networks
// this package runs on under the checker, and it keeps packets and states small.
type NodeID uint8

// Time is a point on the router's clock, in ticks. Config's defaults take a tick to be the
// millisecond of RFC 3561's parameter table.
type Time int64

// Link carries AODV messages to neighbours: UDP port 654 on a real network, the checker's network
// model under test. The link owns m after the call, whatever it returns; the router never touches
// m again, including its Unreachable slice.
type Link interface {
	// Send unicasts m to the neighbour to. An error wrapping ErrLinkDown is link-layer
	// feedback that the neighbour is gone, which the router handles as a link break
	// (RFC 3561 section 6.11); any other error is a lost packet.
	Send(to NodeID, m Message) error
	// Broadcast sends m to every neighbour (the local broadcast address). An error is a lost
	// packet: a broadcast has no one neighbour whose link could be declared broken.
	Broadcast(m Message) error
}

// Clock tells the time. Under the checker it is constant and timeouts are separate events
// (ExpireRoute, ExpireRREQ, EndRebootWait); on a network it advances and Tick fires them.
type Clock interface {
	Now() Time
}

// Alloc hands out message buffers. It may fail, as a bounded packet pool or a kernel allocator
// does; the router then drops the message it was about to send and says so where it can.
type Alloc interface {
	NewMessage() (*Message, error)
}

// Error is the type of this package's sentinel errors. They are constants rather than variables
// so that the package holds no global state a checker could not see.
type Error string

func (e Error) Error() string { return string(e) }

const (
	// ErrLinkDown is what a Link returns (wrapped or not) when a unicast found its neighbour gone.
	ErrLinkDown Error = "aodv: link to neighbour is down"
	// ErrMalformed wraps every reason a message is refused by Receive, Marshal or Unmarshal.
	ErrMalformed Error = "aodv: malformed message"
	// ErrRebootWait is returned by RequestRoute while the router waits out DELETE_PERIOD
	// after a reboot (RFC 3561 section 6.13).
	ErrRebootWait Error = "aodv: waiting after reboot"
	// ErrSelf is returned by RequestRoute for the router's own address: AODV keeps no route to self.
	ErrSelf Error = "aodv: route to self requested"
	// ErrNoBuffer is returned when Alloc gives back neither a buffer nor an error.
	ErrNoBuffer Error = "aodv: allocator returned no buffer"
)
