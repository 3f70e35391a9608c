# Sourced by bin/selcc and bin/test: sets JAVA_HOME to a JDK 25 or newer, or stops with a message.
# Order: $JAVA_HOME, then the usual install locations. The default `java` on these machines is 17.

selcc_java_major() {
    "$1/bin/java" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit }'
}

selcc_find_jdk() {
    local candidate major
    for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/*25* /opt/java/*25* \
                     /usr/lib/jvm/temurin-2[6-9]* /opt/java/openjdk; do
        [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
        major=$(selcc_java_major "$candidate")
        if [ -n "$major" ] && [ "$major" -ge 25 ] 2>/dev/null; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    done
    echo "selcc: JDK 25 required (found none in JAVA_HOME or /usr/lib/jvm): install Temurin 25 or set JAVA_HOME to a JDK 25" >&2
    exit 2
}

selcc_find_jdk
