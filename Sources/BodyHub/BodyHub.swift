// BodyHub: see Package.swift for what lives here.
