import Glibc
import BodySystem

/// Finds lines by name across every GPIO chip, never by chip number: a
/// Raspberry Pi 5's chip number changed between kernels.
struct GpioFinder {
    var directory = "/dev"

    /// `/dev/gpiochip*` in number order.
    func chipPaths() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("gpiochip"), Int(name.dropFirst(8)) != nil { names.append(name) }
        }
        names.sort { (Int($0.dropFirst(8)) ?? 0) < (Int($1.dropFirst(8)) ?? 0) }
        return names.map { "\(directory)/\($0)" }
    }

    /// Where each name is, with the chip's path. One error for the first
    /// name that is on no chip or on two, naming the chips searched.
    func find(_ names: [String]) throws(BoardError) -> [String: (path: String, line: FoundLine)] {
        var chips: [(path: String, chip: GpioChip?, note: String)] = []
        for path in chipPaths() {
            do throws(Errno) {
                let chip = try GpioChip(path: path)
                chips.append((path, chip, "\(chip.name) (\(chip.label), \(chip.lineCount) lines)"))
            } catch {
                let short = path.split(separator: "/").last.map(String.init) ?? path
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
