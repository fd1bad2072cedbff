// Python programs for the bridge attacks in attacks.test.ts: forged frames sent from inside a sandbox,
// a sniffer for a neighbour's traffic, and a capture on the host's side of the bridge.

/** Helpers both sandbox programs share: checksums and frame builders. */
const FRAMES = String.raw`
import json, socket, struct, sys

def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF

def ipv4_udp(source, destination, port, payload):
    udp = struct.pack("!HHHH", 40000, port, 8 + len(payload), 0) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, socket.inet_aton(source), socket.inet_aton(destination))
    header = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
    return header + udp

def mac(text):
    return bytes.fromhex(text.replace(":", ""))

BROADCAST = b"\xff" * 6

def arp(op, sender_mac, sender_ip, target_ip):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sender_mac + socket.inet_aton(sender_ip) + b"\0" * 6 + socket.inet_aton(target_ip)

def packet_socket():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind(("eth0", 0))
    return s

def own_mac():
    return mac(open("/sys/class/net/eth0/address").read().strip())
`;

/** argv: tag, own ip, gateway, neighbour ip, neighbour MAC, UDP port on the gateway. */
export const FRAME_ATTACK =
  FRAMES +
  String.raw`
tag, me, gateway, neighbour, neighbour_mac, port = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], mac(sys.argv[5]), int(sys.argv[6])
result = {}
honest = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(3):
    honest.sendto((tag + "-legit").encode(), (gateway, port))
try:
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for source in (neighbour, gateway, "198.51.100.77"):
        for _ in range(3):
            raw.sendto(ipv4_udp(source, gateway, port, (tag + "-spoof-ip").encode()), (gateway, 0))
    result["raw_ip"] = "sent"
except OSError as error:
    result["raw_ip"] = str(error)
try:
    s = packet_socket()
    mine = own_mac()
    for _ in range(3):
        s.send(BROADCAST + mine + b"\x08\x00" + ipv4_udp(neighbour, gateway, port, (tag + "-spoof-ip-l2").encode()))
        s.send(BROADCAST + neighbour_mac + b"\x08\x00" + ipv4_udp(me, gateway, port, (tag + "-spoof-mac").encode()))
        s.send(BROADCAST + mine + b"\x08\x06" + arp(2, neighbour_mac, me, gateway))
        s.send(BROADCAST + mine + b"\x08\x06" + arp(1, neighbour_mac, me, gateway))
        # A router advertisement to all nodes, and a datagram between link-local addresses.
        ra = struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0) + (tag + "-ipv6-ra").encode()
        link_local = bytes.fromhex("fe800000000000000000000000000001")
        all_nodes = bytes.fromhex("ff020000000000000000000000000001")
        s.send(b"\x33\x33\x00\x00\x00\x01" + mine + b"\x86\xdd" + struct.pack("!IHBB", 0x60000000, len(ra), 58, 255) + link_local + all_nodes + ra)
        datagram = struct.pack("!HHHH", 40000, port, 8 + 16, 0) + (tag + "-ipv6-ll").encode().ljust(16, b".")
        s.send(b"\x33\x33\x00\x00\x00\x01" + mine + b"\x86\xdd" + struct.pack("!IHBB", 0x60000000, len(datagram), 17, 64) + link_local + all_nodes + datagram)
    result["packet"] = "sent"
except OSError as error:
    result["packet"] = str(error)
print(json.dumps(result))
`;

/**
 * argv: own ip, gateway, neighbour MAC. Sends frames posing as the neighbour (which on a learning bridge
 * moves the neighbour's MAC to this port), then counts frames addressed to the neighbour that arrive here.
 */
export const HIJACK_ATTACK =
  FRAMES +
  String.raw`
import time
me, gateway, neighbour_mac = sys.argv[1], sys.argv[2], mac(sys.argv[3])
seen = 0
try:
    s = packet_socket()
    s.settimeout(0.1)
    end = time.time() + 6
    last = 0
    while time.time() < end:
        if time.time() - last > 0.2:
            s.send(BROADCAST + neighbour_mac + b"\x08\x06" + arp(1, neighbour_mac, me, gateway))
            last = time.time()
        try:
            frame = s.recv(65535)
        except socket.timeout:
            continue
        if frame[0:6] == neighbour_mac:
            seen += 1
    print(json.dumps({"frames_for_neighbour": seen}))
except OSError as error:
    print(json.dumps({"frames_for_neighbour": 0, "error": str(error)}))
`;

/** argv: bridge, seconds, JSON list of markers. Prints "ready", then JSON counts of each marker and of ARP senders ("arp:<mac>:<ip>"). */
export const HOST_CAPTURE = String.raw`
import json, socket, sys, time
bridge, seconds, markers = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((bridge, 0))
s.settimeout(0.1)
seen = {marker: 0 for marker in markers}
print("ready", flush=True)
end = time.time() + seconds
while time.time() < end:
    try:
        frame = s.recv(65535)
    except socket.timeout:
        continue
    for marker in markers:
        if marker.encode() in frame:
            seen[marker] += 1
    if frame[12:14] == b"\x08\x06":
        sender = "arp:" + ":".join("%02x" % b for b in frame[22:28]) + ":" + socket.inet_ntoa(frame[28:32])
        seen[sender] = seen.get(sender, 0) + 1
print(json.dumps(seen), flush=True)
`;
