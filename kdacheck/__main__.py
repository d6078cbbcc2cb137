from kdacheck.cli import main

main()
