import BodySystem

/// Finds lines by name across every GPIO chip, never by chip number: a
/// Raspberry Pi 5's chip number changed between kernels.
struct GpioFinder {
    var directory = "/dev"
    var calls = GpioCalls.live

    /// `/dev/gpiochip*` in number order, each chip once (GpioChipNodes).
    func chipNodes() -> [DeviceNode] {
        calls.chipNodes(directory)
    }

    /// Where each name is, with the chip's path. One error for the first
    /// name that is on no chip or on two, naming the chips searched.
    func find(_ names: [String]) throws(BoardError) -> [String: (path: String, line: FoundLine)] {
        var chips: [(path: String, chip: GpioChip?, note: String)] = []
        for node in chipNodes() {
            let path = node.path
            let short = path.split(separator: "/").last.map(String.init) ?? path
            guard node.device != nil else {
                chips.append((path, nil, "\(path) (not a character device)"))
                continue
            }
            do throws(Errno) {
                let chip = try GpioChip(path: path, calls: calls)
                // The kernel's name, and the path when it says another (a link, or a renumbering).
                let at = chip.name == short ? "" : " at \(path)"
                chips.append((path, chip, "\(chip.name) (\(chip.label), \(chip.lineCount) lines\(at))"))
            } catch {
                chips.append((path, nil, "\(short) (cannot open: \(error.words))"))
            }
        }
        defer { for c in chips { c.chip?.close() } }

        let searched = chips.isEmpty ? "no GPIO chips in \(directory)" : "searched " + chips.map(\.note).joined(separator: ", ")
        var result: [String: (path: String, line: FoundLine)] = [:]
        for name in names where result[name] == nil {
            var hits: [(path: String, line: FoundLine)] = []
            for c in chips {
                guard let chip = c.chip else { continue }
                do throws(Errno) {
                    for offset in try chip.offsets(named: name) {
                        hits.append((c.path, FoundLine(chip: chip.name, offset: offset, name: name)))
                    }
                } catch {
                    throw BoardError(.init(error), "gpio: cannot read line names on \(chip.name): \(error.words)")
                }
            }
            switch hits.count {
            case 0:
                throw BoardError(.lineNotFound, "gpio: cannot find line \"\(name)\": no line has that name; \(searched)")
            case 1:
                result[name] = hits[0]
            default:
                let places = hits.map { "\($0.line.chip) line \($0.line.offset == .max ? "?" : String($0.line.offset))" }
                throw BoardError(.lineAmbiguous, "gpio: cannot use line \"\(name)\": the name is on \(places.joined(separator: " and ")); \(searched)")
            }
        }
        return result
    }
}
