import Testing
@testable import BodyAgent

/// The page and its sign-in form name the body (issue 35): two bodies open in
/// two tabs say which is which.
@Suite("The page names the body")
struct PageNameTests {
    /// The text between `open` and `close`, the first time they occur.
    func between(_ open: String, _ close: String, in html: String) -> String? {
        guard let a = html.firstRange(of: open), let b = html[a.upperBound...].firstRange(of: close) else { return nil }
        return String(html[a.upperBound..<b.lowerBound])
    }

    @Test("the page's title and header are the body's configured name", arguments: ["studio", "kitchen"])
    func page(name: String) {
        let html = PageHTML.page(name: name)
        #expect(between("<title>", "</title>", in: html) == "\(name) · studio body")
        #expect(between("<h1>", "</h1>", in: html) == #"\#(name) <small>studio body</small> <small id="who"></small>"#)
    }

    @Test("the sign-in form names the body too, refusal or not")
    func signIn() {
        #expect(between("<title>", "</title>", in: PageHTML.signIn(nil, name: "kitchen")) == "kitchen · studio body: sign in")
        let refused = PageHTML.signIn("That is not this body's token.", name: "kitchen")
        #expect(between("<h1>", "</h1>", in: refused) == "kitchen <small>studio body</small>")
        #expect(refused.contains("That is not this body&#39;s token."))
    }

    @Test("a name with markup in it is written as text, not markup")
    func escaped() {
        let html = PageHTML.page(name: #"<b>"Dad's" & co</b>"#)
        #expect(between("<title>", "</title>", in: html) == "&lt;b&gt;&quot;Dad&#39;s&quot; &amp; co&lt;/b&gt; · studio body")
        #expect(!html.contains("<b>"))
    }
}
